// vCPU speed probe: every PERIOD_US runs a fixed compute chunk and compares the thread CPU time it took with the
// fastest chunk so far. The guest charges a task for the time it is current, so when the host runs the vCPU slowly
// (or not at all) the chunk's thread CPU time grows with its wall time; a guest-level preemption grows only the
// wall time. Prints one line per slow episode (chunks at < 1/3 speed, merged when < 20 ms apart), wall-clock
// (CLOCK_REALTIME) and CLOCK_MONOTONIC start times, duration and mean speed; at the end the share of time slowed.
// Usage: vcpu-speed SECONDS [PERIOD_US=1000]
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double ts(clockid_t c){struct timespec t;clock_gettime(c,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  double dur=atof(argv[1]); long period=argc>2?atol(argv[2]):1000;
  volatile double acc=0; double t0=ts(CLOCK_MONOTONIC),end=t0+dur,minCpu=1;
  double off=ts(CLOCK_REALTIME)-ts(CLOCK_MONOTONIC);
  int inEp=0; double epS=0,epE=0,epCpu=0,epMin=0,slow=0; long chunks=0;
  while(ts(CLOCK_MONOTONIC)<end){
    double w0=ts(CLOCK_MONOTONIC),c0=ts(CLOCK_THREAD_CPUTIME_ID);
    for(int i=0;i<20000;i++)acc+=i*0.5;
    double c=ts(CLOCK_THREAD_CPUTIME_ID)-c0,w1=ts(CLOCK_MONOTONIC); chunks++;
    if(c<minCpu)minCpu=c;
    if(chunks>50&&c>3*minCpu){ if(!inEp){inEp=1;epS=w0;epCpu=0;epMin=0;} epE=w1; epCpu+=c; epMin+=minCpu; }
    else if(inEp&&w0-epE>0.02){ inEp=0; slow+=epE-epS;
      printf("episode real %.4f mono %.4f dur %.1f ms speed %.2f\n",epS+off,epS,(epE-epS)*1e3,epMin/epCpu); fflush(stdout);}
    struct timespec s={0,period*1000}; nanosleep(&s,0);
  }
  printf("chunks %ld min chunk %.1f us, slowed %.2f%% of %.0f s\n",chunks,minCpu*1e6,100*slow/dur,dur);
}

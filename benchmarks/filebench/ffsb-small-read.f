# FFSB's small-file read test (Ext4 tuning, seed 004, §4.1) in filebench's workload
# language: @THREADS@ threads, each reading @FILES@ whole files of 40 KB with 4 KiB
# records: the files ffsb-small-write.f wrote (the same fileset, reused), taken in turn
# from one rotation, so each is read once. jobs/ext4tune-bench.sh fills in @THREADS@,
# @FILES@ (files per thread) and @ENTRIES@ (threads x files) from
# config/experiments/ext4tune.yaml, and @DIR@ and @TIMEOUT@; it runs each ffsb-*.f
# after the page cache is dropped, as a traced phase of its own.
#
# Fixed work, not a timed run: each thread handles its share of files and stops
# (finishoncount), and the run ends when every thread has (quit alldone; @TIMEOUT@
# seconds is only a bound). filebench clears its statistics just after it releases the
# threads, so the workers wait at a gate (gate1) that the starter thread opens a second
# later with one token per file: every counted operation falls after the clear, and the
# table checks that the summary counts each file once.
set mode quit alldone

define fileset name=ffsbsmall,path=@DIR@,size=40k,entries=@ENTRIES@,dirwidth=@ENTRIES@,prealloc=100,reuse

define process name=ffsb,instances=1
{
  thread name=starter,memsize=4k,instances=1
  {
    flowop delay name=settle1,value=1
    flowop sempost name=open-gate1,target=gate1,value=@ENTRIES@
    flowop finishoncount name=started1,value=1,target=settle1
  }
  thread name=reader,memsize=64k,instances=@THREADS@
  {
    flowop semblock name=gate1,value=1,highwater=@ENTRIES@
    flowop openfile name=open1,filesetname=ffsbsmall,fd=1
    flowop readwholefile name=read1,fd=1,iosize=4k
    flowop closefile name=close1,fd=1
    flowop finishoncount name=done1,value=@FILES@,target=open1
  }
}

run @TIMEOUT@

# FFSB's small-file write test (Ext4 tuning, seed 004, §4.1) in filebench's workload
# language: @THREADS@ threads, each creating @FILES@ files of 40 KB (the paper's size)
# written whole with 4 KiB records, each fsynced before it is closed; ffsb-small-read.f
# reads the same files. jobs/ext4tune-bench.sh fills in @THREADS@, @FILES@ (files per
# thread) and @ENTRIES@ (threads x files) from config/experiments/ext4tune.yaml, and
# @DIR@ and @TIMEOUT@; it runs each ffsb-*.f after the page cache is dropped, as a
# traced phase of its own.
#
# Fixed work, not a timed run: each thread handles its share of files and stops
# (finishoncount), and the run ends when every thread has (quit alldone; @TIMEOUT@
# seconds is only a bound). filebench clears its statistics just after it releases the
# threads, so the workers wait at a gate (gate1) that the starter thread opens a second
# later with one token per file: every counted operation falls after the clear, and the
# table checks that the summary counts each file once.
set mode quit alldone

define fileset name=ffsbsmall,path=@DIR@,size=40k,entries=@ENTRIES@,dirwidth=@ENTRIES@,prealloc=0

define process name=ffsb,instances=1
{
  thread name=starter,memsize=4k,instances=1
  {
    flowop delay name=settle1,value=1
    flowop sempost name=open-gate1,target=gate1,value=@ENTRIES@
    flowop finishoncount name=started1,value=1,target=settle1
  }
  thread name=writer,memsize=64k,instances=@THREADS@
  {
    flowop semblock name=gate1,value=1,highwater=@ENTRIES@
    flowop createfile name=create1,filesetname=ffsbsmall,fd=1
    flowop writewholefile name=write1,fd=1,iosize=4k
    flowop fsync name=fsync1,fd=1
    flowop closefile name=close1,fd=1
    flowop finishoncount name=done1,value=@FILES@,target=create1
  }
}

run @TIMEOUT@

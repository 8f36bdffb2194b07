# filebench counterpart of FFSB's small-file read test (Ext4 tuning, seed 004, §4.1):
# FFSB_THREADS threads reading whole 40 KB files with 4 KiB requests. Run by
# jobs/ext4tune-bench.sh only where filebench is installed (Debian has no package); the
# job replaces @DIR@, @FILES@, @THREADS@ and @SECONDS@.
set $dir=@DIR@
set $nfiles=@FILES@
set $nthreads=@THREADS@

define fileset name=smallfiles,path=$dir,size=40k,entries=$nfiles,dirwidth=100,prealloc=100

define process name=reader,instances=1
{
  thread name=readerthread,memsize=1m,instances=$nthreads
  {
    flowop openfile name=open1,filesetname=smallfiles,fd=1
    flowop readwholefile name=read1,fd=1,iosize=4k
    flowop closefile name=close1,fd=1
  }
}

run @SECONDS@

# TMC Fig. 14a: mean DoF of concurrent appenders' files with space preallocation in
# units of 0 (none) to 512 KiB, by number of threads, at Low utilization (TMC §6.1.1).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
save_figure(plot_prealloc_dof(read_table(args$tables[[1]]), "low"), args)

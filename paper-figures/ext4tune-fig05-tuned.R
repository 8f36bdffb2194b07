# Ext4 tuning Fig. 5: throughput with every parameter of Fig. 4 applied over the
# default configuration's.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
bench <- read_table(args$tables[[1]])
configs <- c("tuned" = "tuned (-G 32 -I 128; noatime, noauto_da_alloc, journal_async_commit)")
plot <- plot_ext4tune_figure(bench, configs, "default", "default")
save_figure(plot, args, width = 9, height = 6)

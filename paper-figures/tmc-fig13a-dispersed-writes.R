# TMC Fig. 13a: total time of the random 4 KiB writes against the size of the region they
# fall in, normalized to the smallest region.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
dispersed <- read_table(args$tables[[1]])
plot <- plot_normalized_dispersed(normalized_dispersed(dispersed, "write"), "write")
save_figure(plot, args, width = 5)

# Ext4 tuning Fig. 1: throughput with noatime, with noauto_da_alloc, and with 128-byte
# inodes, each over the default configuration's.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
bench <- read_table(args$tables[[1]])
configs <- c(
  "noatime" = "noatime", "noauto-da-alloc" = "noauto_da_alloc", "inode-128" = "128 B inode"
)
plot <- plot_ext4tune_figure(bench, configs, "default", "default")
save_figure(plot, args, width = 9, height = 6)

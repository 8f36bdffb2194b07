# Ext4 tuning Fig. 3: throughput with journal_async_commit over the default's; Linux
# accepts it only with data=writeback, which is shown alone too.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
bench <- read_table(args$tables[[1]])
configs <- c(
  "writeback" = "data=writeback",
  "async-commit" = "data=writeback + journal_async_commit"
)
plot <- plot_ext4tune_figure(bench, configs, "default", "default")
save_figure(plot, args, width = 9, height = 6)

# Ext4 tuning Fig. 5: throughput with every parameter of Fig. 4 applied over the
# default configuration's.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

# The modeled series (each run's block trace on the device model: judged) above the
# emulator's wall time (secondary), each over the baseline configuration's.
series <- c(modeled_mib_s = "modeled (device model)", wall_mib_s = "emulator wall time")
both <- function(bench, configs, baseline) {
  rows <- do.call(rbind, lapply(names(series), function(column) {
    bench$mib_s <- bench[[column]]
    rows <- ext4tune_normalized(bench, configs, baseline)
    rows$time <- series[[column]]
    rows
  }))
  rows$time <- factor(rows$time, levels = unname(series))
  rows
}

args <- figure_args(1)
bench <- read_table(args$tables[[1]])
configs <- c("tuned" = "tuned (-G 32 -I 128; noatime, noauto_da_alloc, journal_async_commit)")
plot <- plot_ext4tune(both(bench, configs, "default"), "default") +
  facet_wrap(~time, ncol = 1, scales = "free_y")
save_figure(plot, args, width = 9, height = 6)

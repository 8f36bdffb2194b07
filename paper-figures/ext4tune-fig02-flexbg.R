# Ext4 tuning Fig. 2: throughput with 32, 4, 2 and 1 flex groups over 32 block groups,
# over No_FlexBg's (one block group per flex group).
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
configs <- c(
  "flexbg-1" = "No_FlexBg (-G 1)", "flexbg-8" = "4_FlexBg (-G 8)",
  "default" = "2_FlexBg (-G 16, default)", "flexbg-32" = "1_FlexBg (-G 32)"
)
plot <- plot_ext4tune(both(bench, configs, "flexbg-1"), "No_FlexBg") +
  facet_wrap(~time, ncol = 1, scales = "free_y")
save_figure(plot, args, width = 9, height = 6)

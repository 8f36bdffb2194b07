# Ext4 tuning Fig. 2: throughput with 32, 4, 2 and 1 flex groups over 32 block groups,
# over No_FlexBg's (one block group per flex group).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
bench <- read_table(args$tables[[1]])
configs <- c(
  "flexbg-1" = "No_FlexBg (-G 1)", "flexbg-8" = "4_FlexBg (-G 8)",
  "default" = "2_FlexBg (-G 16, default)", "flexbg-32" = "1_FlexBg (-G 32)"
)
plot <- plot_ext4tune_figure(bench, configs, "flexbg-1", "No_FlexBg")
save_figure(plot, args, width = 9, height = 6)

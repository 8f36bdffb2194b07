# janusd Fig. 7 in the FTL model: read throughput of one file by its logical (DoF_L) and
# physical (DoF_P) fragmentation, normalized to the unfragmented file (janusd §3.2).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
tp <- read_table(args$tables[[1]])
best <- tp$throughput_mb_s[tp$dof_l == 1 & tp$dof_p == min(tp$dof_p)][1]
tp$normalized <- tp$throughput_mb_s / best
tp$dof_p <- factor(sprintf("%.2f", tp$dof_p))

plot <- ggplot(tp, aes(dof_l, normalized, colour = dof_p)) +
  geom_line() +
  geom_point() +
  scale_x_continuous(trans = "log2", breaks = sort(unique(tp$dof_l))) +
  scale_colour_manual(values = palette_for(length(levels(tp$dof_p)))) +
  coord_cartesian(ylim = c(0, 1)) +
  labs(x = "logical fragmentation DoF_L", y = "normalized read throughput", colour = "DoF_P") +
  theme_mobifrag()

save_figure(plot, args, width = 5)

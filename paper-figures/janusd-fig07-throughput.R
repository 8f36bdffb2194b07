# janusd Fig. 7 in the FTL model: read throughput of one file by its logical (DoF_L) and
# physical (DoF_P) fragmentation, normalized to the unfragmented file (janusd §3.2), in
# the paper's two panels: (a) low DoF_P, (b) high DoF_P.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
tp <- read_table(args$tables[[1]])
best <- tp$throughput_mb_s[tp$dof_l == 1 & tp$dof_p == min(tp$dof_p)][1]
tp$normalized <- tp$throughput_mb_s / best
panels <- c("(a) low DoF_P (below 0.5)", "(b) high DoF_P (0.5 and above)")
tp$panel <- factor(ifelse(tp$dof_p < 0.5, panels[[1]], panels[[2]]), levels = panels)
tp$dof_p <- factor(sprintf("%.2f", tp$dof_p))

# The paper's cut at DoF_L 8 without physical fragmentation (janusd §3.2), in panel (a).
paper <- data.frame(
  claim = "janusd-fig07-logical-fragmentation-cuts-throughput",
  dof_l = 8, panel = factor(panels[[1]], levels = panels)
)

# Series of equal throughput (four planes already outrun the host link) are drawn side by
# side, so none hides another.
dodge <- position_dodge(width = 0.2)
plot <- ggplot(tp, aes(dof_l, normalized, colour = dof_p, shape = dof_p, group = dof_p)) +
  geom_line(position = dodge) +
  geom_point(position = dodge, size = 2) +
  paper_marks(paper, "dof_l", hjust = 1.3) +
  facet_wrap(~panel, nrow = 1, drop = FALSE) +
  scale_x_continuous(trans = "log2", breaks = sort(unique(tp$dof_l))) +
  scale_colour_manual(values = palette_for(nlevels(tp$dof_p))) +
  scale_shape_manual(values = c(16, 17, 15, 1, 2, 0)[seq_len(nlevels(tp$dof_p))]) +
  coord_cartesian(ylim = c(0, 1.05)) +
  labs(
    x = "logical fragmentation DoF_L", y = "normalized read throughput",
    colour = "DoF_P", shape = "DoF_P"
  ) +
  theme_mobifrag()

save_figure(plot, args, width = 7)

# janusd Fig. 6: each file's logical fragmentation (DoF_L, fragcheck) against its physical
# fragmentation (DoF_P, ftl-sim's placement of the block trace that wrote it), for the
# concurrent appenders of the e4defrag runs (janusd §3.1).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
files <- read_table(args$tables[[1]])
files <- files[!is.na(files$dof), ]
levels_present <- intersect(c("low", "moderate", "high", "full"), files$level)
files$level <- factor(
  files$level,
  levels = levels_present, labels = tools::toTitleCase(levels_present)
)
files$threads <- factor(files$threads, levels = sort(unique(files$threads)))

plot <- ggplot(files, aes(dof, dof_p, colour = threads)) +
  geom_hline(yintercept = 0.5, linetype = "dashed", colour = "grey40") +
  geom_point(alpha = 0.8, position = position_jitter(width = 0, height = 0.005, seed = 1)) +
  facet_wrap(~level, nrow = 1) +
  scale_x_continuous(trans = "log2", breaks = 2^(0:10)) +
  expand_limits(x = 1) +
  scale_colour_manual(values = palette_for(length(levels(files$threads)))) +
  coord_cartesian(ylim = c(0, 1)) +
  labs(
    x = "logical fragmentation DoF_L", y = "physical fragmentation DoF_P",
    colour = "appending threads"
  ) +
  theme_mobifrag()

save_figure(plot, args)

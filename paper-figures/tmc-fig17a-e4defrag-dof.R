# TMC Fig. 17a: mean DoF of concurrent appenders' files before and after the real
# e4defrag, by number of threads, at each utilization level (TMC §6.2.1).
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"))

args <- figure_args(1)
dof <- read_table(args$tables[[1]])
dof <- dof[!is.na(dof$dof), ]
means <- aggregate(dof ~ level + threads + phase, data = dof, FUN = mean)
means$level <- factor(
  means$level,
  levels = intersect(c("low", "moderate", "high", "full"), means$level),
  labels = tools::toTitleCase(intersect(c("low", "moderate", "high", "full"), means$level))
)
means$phase <- factor(means$phase, levels = c("before_defrag", "e4defrag"))
means$threads <- factor(means$threads, levels = sort(unique(means$threads)))

plot <- ggplot(means, aes(threads, dof, fill = phase)) +
  geom_col(position = position_dodge(width = 0.85), width = 0.8) +
  geom_hline(yintercept = 1, linetype = "dashed", colour = "grey40") +
  facet_wrap(~level, nrow = 1) +
  scale_fill_manual(values = palette_for(2)) +
  labs(x = "concurrent appending threads", y = "mean DoF", fill = NULL) +
  theme_mobifrag()

save_figure(plot, args)

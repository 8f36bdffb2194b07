# TMC Fig. 17a: mean DoF of concurrent appenders' files before defragmentation, after the
# real e4defrag, and after janusdL (e4defrag's plan carried out by FTL remapping), by
# number of threads, at each utilization level (TMC §6.2.1–6.2.2).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
dof <- read_table(args$tables[[1]])
dof <- dof[!is.na(dof$dof), ]
# The state before defragmenting is the same run for every method: draw it once.
dof$bar <- ifelse(dof$phase == "before_defrag", "before_defrag", dof$method)
dof <- dof[dof$phase == "after_defrag" | dof$method == "e4defrag", ]
means <- aggregate(dof ~ level + threads + bar, data = dof, FUN = mean)
levels_present <- intersect(c("low", "moderate", "high", "full"), means$level)
means$level <- factor(
  means$level,
  levels = levels_present, labels = tools::toTitleCase(levels_present)
)
means$bar <- factor(
  means$bar,
  levels = intersect(c("before_defrag", "e4defrag", "janusdL"), means$bar)
)
means$threads <- factor(means$threads, levels = sort(unique(means$threads)))

plot <- ggplot(means, aes(threads, dof, fill = bar)) +
  geom_col(position = position_dodge(width = 0.85), width = 0.8) +
  geom_hline(yintercept = 1, linetype = "dashed", colour = "grey40") +
  facet_wrap(~level, nrow = 1) +
  scale_fill_manual(values = palette_for(3)) +
  labs(x = "concurrent appending threads", y = "mean DoF", fill = NULL) +
  theme_mobifrag()

save_figure(plot, args)

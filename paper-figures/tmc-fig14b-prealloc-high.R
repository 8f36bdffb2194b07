# TMC Fig. 14b: mean DoF of concurrent appenders' files with space preallocation in
# units of 0 (none) to 512 KiB, by number of threads, at High utilization (TMC §6.1.1).
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"))

args <- figure_args(1)
dof <- read_table(args$tables[[1]])
dof <- dof[dof$level == "high" & !is.na(dof$dof), ]
if (nrow(dof) == 0) stop("no High-utilization runs in ", args$tables[[1]])
means <- aggregate(dof ~ threads + unit_kib, data = dof, FUN = mean)
means$threads <- factor(means$threads, levels = sort(unique(means$threads)))
units <- sort(unique(means$unit_kib))
means$unit <- factor(
  ifelse(means$unit_kib == 0, "none", paste(means$unit_kib, "KiB")),
  levels = ifelse(units == 0, "none", paste(units, "KiB"))
)

plot <- ggplot(means, aes(threads, dof, fill = unit)) +
  geom_col(position = position_dodge(width = 0.85), width = 0.8) +
  geom_hline(yintercept = 1, linetype = "dashed", colour = "grey40") +
  scale_fill_manual(values = palette_for(length(units))) +
  labs(x = "concurrent appending threads", y = "mean DoF", fill = "preallocation unit") +
  theme_mobifrag()

save_figure(plot, args)

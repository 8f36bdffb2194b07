# TMC Fig. 7: mean DoF of an app's SQLite and non-SQLite files after its scenario ran on
# a file system aged by fill/delete to each utilization level (Low is pristine).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
dof <- app_files(read_table(args$tables[[1]]))
dof <- dof[!is.na(dof$dof), ]
dof$files <- sqlite_or_not(dof$class)
means <- aggregate(dof ~ app + level + files, data = dof, FUN = mean)
means$level <- factor(means$level, levels = c("low", "moderate", "high", "full"))

plot <- ggplot(means, aes(level, dof, fill = files)) +
  geom_col(position = position_dodge(width = 0.8), width = 0.75) +
  facet_wrap(~app, scales = "free_y") +
  scale_fill_manual(values = palette_for(2)) +
  labs(x = "file system utilization", y = "mean DoF", fill = NULL) +
  theme_mobifrag()

save_figure(plot, args)

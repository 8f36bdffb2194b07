# TMC Fig. 5a: mean DoF of each file class on every day of the AutoAge replay.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
dof <- with_repetitions(read_table(args$tables[[1]]))
dof <- dof[dof$day >= 1 & !is.na(dof$dof), ]
# Each run's mean per day and class, then their median and range over the runs.
runs <- aggregate(dof ~ day + class + rep, data = dof, FUN = mean)
daily <- over_repetitions(runs, "dof", c("day", "class"))
daily$class <- file_class_factor(daily$class)

plot <- ggplot(daily, aes(day, median, colour = class, shape = class)) +
  geom_linerange(aes(ymin = low, ymax = high), alpha = 0.5) +
  geom_line() +
  geom_point(size = 1.5) +
  scale_x_days() +
  scale_colour_manual(values = file_class_colours) +
  labs(x = "day", y = "mean DoF", colour = "file class", shape = "file class") +
  theme_mobifrag()

save_figure(plot, args)

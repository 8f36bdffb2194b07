# TMC Fig. 5a: mean DoF of each file class on every day of the AutoAge replay.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
dof <- read_table(args$tables[[1]])
dof <- dof[dof$day >= 1 & !is.na(dof$dof), ]
daily <- aggregate(dof ~ day + class, data = dof, FUN = mean)
daily$class <- file_class_factor(daily$class)

plot <- ggplot(daily, aes(day, dof, colour = class, shape = class)) +
  geom_line() +
  geom_point(size = 1.5) +
  scale_x_days() +
  scale_colour_manual(values = file_class_colours) +
  labs(x = "day", y = "mean DoF", colour = "file class", shape = "file class") +
  theme_mobifrag()

save_figure(plot, args)

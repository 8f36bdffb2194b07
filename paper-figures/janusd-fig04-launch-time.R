# janusd Fig. 4 (modeled): each app's launch reads (every file of the app read once) over
# the layout just before and just after each recurring defragmentation, as ftl-sim's
# modeled time (device time + the profile's host overhead per request) (janusd §2.4).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
launch <- read_recurring_table(args$tables[[1]])

plot <- ggplot(launch, aes(day, modeled_ms, colour = phase)) +
  geom_line() +
  geom_point(size = 1.2) +
  facet_grid(app ~ interval, scales = "free_y") +
  scale_colour_manual(values = palette_for(2)) +
  scale_x_days() +
  labs(x = "day of AutoAge", y = "modeled launch time (ms)", colour = NULL) +
  theme_mobifrag()

save_figure(plot, args, height = 5)

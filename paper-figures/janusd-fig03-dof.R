# janusd Fig. 3: the average DoF of each app's files just before and just after each
# recurring defragmentation, daily and weekly, as AutoAge replays the apps' installs,
# updates and use (janusd §2.3).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
dof <- read_recurring_table(args$tables[[1]])

# The paper's Twitter DoF on the seventh day after a full defragmentation (70 %
# utilization, janusd §2.3), beside the weekly run's last day before its defragmentation
# (left of it, so that neither hides the other).
weekly <- dof[dof$interval_days == 7 & dof$package == "com.twitter.android", ]
paper <- data.frame(
  claim = "janusd-fig03-twitter-fragments-again-within-a-week",
  day = suppressWarnings(max(weekly$day)),
  interval = "defrag every 7 d", app = package_label("com.twitter.android")
)
paper <- paper[is.finite(paper$day), , drop = FALSE]

plot <- ggplot(dof, aes(day, dof, colour = phase, shape = phase)) +
  geom_hline(yintercept = 1, linetype = "dashed", colour = "grey40") +
  geom_line() +
  geom_point(size = 1.5) +
  paper_marks(paper, "day", nudge_x = -0.4, hjust = 1.25) +
  facet_grid(app ~ interval) +
  scale_colour_manual(values = palette_for(2)) +
  scale_x_days() +
  labs(x = "day of AutoAge", y = "mean DoF of the app's files", colour = NULL, shape = NULL) +
  theme_mobifrag()

save_figure(plot, args, height = 5)

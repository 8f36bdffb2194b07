# janusd Fig. 3: the average DoF of each app's files just before and just after each
# recurring defragmentation, daily and weekly, as AutoAge replays the apps' installs,
# updates and use (janusd §2.3).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
dof <- read_recurring_table(args$tables[[1]])

# The paper's Twitter DoF on the seventh day after a full defragmentation (1.86 at 70 %
# utilization, 3.04 at 90 %, janusd §2.3), beside each weekly run's last day before its
# defragmentation (left of it, so that neither hides the other).
claims <- c(
  "70" = "janusd-fig03-twitter-fragments-again-within-a-week",
  "90" = "janusd-fig03-twitter-fragments-more-at-90-percent"
)
twitter <- dof[dof$interval_days == 7 & dof$package == "com.twitter.android", ]
utilizations <- if ("utilization_percent" %in% names(twitter)) {
  intersect(names(claims), as.character(unique(twitter$utilization_percent)))
} else {
  "70"
}
paper <- do.call(rbind, lapply(utilizations, function(u) {
  weekly <- if ("utilization_percent" %in% names(twitter)) {
    twitter[as.character(twitter$utilization_percent) == u, ]
  } else {
    twitter
  }
  data.frame(
    claim = claims[[u]], day = suppressWarnings(max(weekly$day)),
    interval = as.character(weekly$interval[1]), app = package_label("com.twitter.android")
  )
}))
paper <- if (is.null(paper)) data.frame() else paper[is.finite(paper$day), , drop = FALSE]

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

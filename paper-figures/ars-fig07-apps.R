# ARS Fig. 7 (§V.C): running time of the Facebook and Twitter scenario traces at Low and
# Moderate, with the decision tree's files reserved, relative to F2FS in the same state.
# Modeled: each app replay's block trace through ftl-sim on the device profile (judged
# on an emulator); the wall time is drawn below it, labelled with where it was measured.
# Each bar is the median of the repetitions.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
runs <- read_table(args$tables[[1]])
if (nrow(runs) == 0) stop("no runs in ", args$tables[[1]])
# Repeated runs: the median of the repetitions.
runs <- repetition_medians(
  with_repetitions(runs), c("modeled_relative", "wall_relative"), c("scheme", "state", "app")
)
series <- c("modeled (device model)", paste(wall_series(), "time"))
runs <- rbind(
  data.frame(runs[c("scheme", "state", "app")], time = series[[1]],
    relative = runs$modeled_relative),
  data.frame(runs[c("scheme", "state", "app")], time = series[[2]],
    relative = runs$wall_relative)
)
runs$time <- factor(runs$time, levels = series)
runs$scheme <- ars_scheme_factor(runs$scheme)
runs$state <- ars_state_factor(runs$state)
runs$app <- app_label(runs$app)

plot <- plot_ars_bars(runs, "app", "relative", "running time / F2FS") +
  facet_grid(time ~ state, scales = "free_y")

save_figure(plot, args, height = 6)

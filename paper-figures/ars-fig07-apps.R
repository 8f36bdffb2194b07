# ARS Fig. 7 (§V.C): running time of the Facebook and Twitter scenario traces at Low and
# Moderate, with the decision tree's files reserved, relative to F2FS in the same state.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
runs <- read_table(args$tables[[1]])
if (nrow(runs) == 0) stop("no runs in ", args$tables[[1]])
runs$scheme <- ars_scheme_factor(runs$scheme)
runs$state <- ars_state_factor(runs$state)

plot <- plot_ars_bars(runs, "app", "relative", "running time / F2FS") +
  facet_wrap(~state)

save_figure(plot, args)

# TMC Fig. 11: app installing time of each app on the No, Moderate and Severe aged states, modeled
# and wall time side by side; block requests above the modeled bars.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
latency <- read_table(args$tables[[1]])
save_figure(plot_app_latency(latency, "install", "installing time (ms)"), args)

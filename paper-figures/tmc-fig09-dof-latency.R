# TMC Fig. 9: time to read a file cold vs its DoF, with the linear fit t = a·DoF + b of
# this run next to the paper's t = 0.17·DoF + 990 ms (100 MB file).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(2)
scan <- read_table(args$tables[[1]])
fit <- read_table(args$tables[[2]])

times <- rbind(
  data.frame(dof = scan$dof, ms = scan$modeled_ms, time = "modeled"),
  data.frame(dof = scan$dof, ms = scan$emulator_wall_ms, time = "emulator wall")
)
fit$time <- ifelse(fit$time == "modeled_ms", "modeled", "emulator wall")
fit$label <- sprintf(
  "%s: t = %.3g·DoF + %.0f ms (R² %.2f)", fit$time, fit$slope_ms_per_dof, fit$intercept_ms, fit$r2
)

plot <- ggplot(times, aes(dof, ms, colour = time, shape = time)) +
  geom_point(size = 2) +
  geom_abline(
    data = fit, aes(slope = slope_ms_per_dof, intercept = intercept_ms, colour = time),
    linewidth = 0.4
  ) +
  annotate("text",
    x = -Inf, y = Inf, hjust = -0.02, vjust = 1.2, size = 2.8,
    label = paste(c(fit$label, "paper (100 MB): t = 0.17·DoF + 990 ms"), collapse = "\n")
  ) +
  scale_colour_manual(values = palette_for(2)) +
  labs(x = "DoF of the scanned file", y = "read time (ms)", colour = NULL, shape = NULL) +
  theme_mobifrag()

save_figure(plot, args)

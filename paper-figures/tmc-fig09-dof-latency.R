# TMC Fig. 9: time to read a file cold vs its DoF, with the linear fit t = a·DoF + b of
# each repetition next to the paper's t = 0.17·DoF + 990 ms (100 MB file).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(2)
scan <- read_table(args$tables[[1]])
fit <- read_table(args$tables[[2]])

# Every repetition's points and fitted line; the label gives the median fit.
times <- rbind(
  data.frame(rep = scan$rep, dof = scan$dof, ms = scan$modeled_ms, time = "modeled"),
  data.frame(rep = scan$rep, dof = scan$dof, ms = scan$wall_ms, time = wall_series())
)
fit$time <- ifelse(fit$time == "modeled_ms", "modeled", wall_series())
median_fit <- aggregate(cbind(slope_ms_per_dof, intercept_ms, r2) ~ time, fit, median)
median_fit$label <- sprintf(
  "%s: t = %.3g·DoF + %.0f ms (R² %.2f)", median_fit$time, median_fit$slope_ms_per_dof,
  median_fit$intercept_ms, median_fit$r2
)
runs <- length(unique(fit$rep))

plot <- ggplot(times, aes(dof, ms, colour = time, shape = time)) +
  geom_point(size = 2) +
  geom_abline(
    data = fit,
    aes(slope = slope_ms_per_dof, intercept = intercept_ms, colour = time),
    linewidth = 0.3, alpha = 0.6
  ) +
  annotate("text",
    x = -Inf, y = Inf, hjust = -0.02, vjust = 1.2, size = 2.8,
    label = paste(
      c(sprintf("median fit of %d runs:", runs), median_fit$label,
        "paper (100 MB): t = 0.17·DoF + 990 ms"),
      collapse = "\n"
    )
  ) +
  scale_colour_manual(values = palette_for(2)) +
  labs(x = "DoF of the scanned file", y = "read time (ms)", colour = NULL, shape = NULL) +
  theme_mobifrag()

save_figure(plot, args)

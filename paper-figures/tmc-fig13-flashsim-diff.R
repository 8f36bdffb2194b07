# FlashSim cross-check of TMC §5.3.3's device side: map-cache hits and misses and device
# time of a sample of the study's block traces through FlashSim's DFTL and ftl-sim at one
# matched configuration (mobifrag/model/flashsim_diff.py), side by side per trace.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
diff <- read_table(args$tables[[1]])
if (nrow(diff) == 0) stop("the FlashSim diff table has no rows")

metrics <- c("map-cache hits", "map-cache misses", "device time (ms)")
simulators <- c("ftl-sim", "FlashSim")
pair <- function(metric, ours, theirs) {
  rbind(
    data.frame(trace = diff$trace, metric = metric, simulator = simulators[[1]], value = ours),
    data.frame(trace = diff$trace, metric = metric, simulator = simulators[[2]], value = theirs)
  )
}
long <- rbind(
  pair(metrics[[1]], diff$ftl_sim_hits, diff$flashsim_hits),
  pair(metrics[[2]], diff$ftl_sim_misses, diff$flashsim_misses),
  pair(metrics[[3]], diff$ftl_sim_device_ms, diff$flashsim_device_ms)
)
long$metric <- factor(long$metric, levels = metrics)
long$simulator <- factor(long$simulator, levels = simulators)
long$trace <- factor(long$trace, levels = diff$trace)

# Above each pair of time bars: ftl-sim's difference from FlashSim's time with the
# translation-page reads FlashSim leaves out ("not compared" where GC ran or on several planes).
notes <- data.frame(
  trace = factor(diff$trace, levels = diff$trace),
  metric = factor(metrics[[3]], levels = metrics),
  value = pmax(diff$ftl_sim_device_ms, diff$flashsim_device_ms),
  label = ifelse(diff$time_within_tolerance == "NA", "not compared",
    sprintf("%+.2g %%", diff$difference_pct))
)

plot <- ggplot(long, aes(trace, value, fill = simulator)) +
  geom_col(position = position_dodge(width = 0.85), width = 0.8) +
  geom_text(data = notes, aes(trace, value, label = label), inherit.aes = FALSE,
    vjust = -0.4, size = 2.1) +
  facet_wrap(~metric, scales = "free_y") +
  scale_y_continuous(expand = expansion(mult = c(0, 0.15))) +
  scale_fill_manual(values = palette_for(2)) +
  labs(x = NULL, y = NULL, fill = NULL) +
  theme_mobifrag() +
  theme(axis.text.x = element_text(angle = 30, hjust = 1))

save_figure(plot, args, width = 8, height = 3.8)

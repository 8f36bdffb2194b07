# Rules that run on the machine running Snakemake, never as a job of their own on a
# cluster (profiles/slurm: every other job is one `sbatch` job). They are light: trace
# generation, table builders, figures, claims, provenance, small packaging steps; each
# takes seconds and little memory, less than a cluster job's queueing and start-up
# (two Snakemake starts per job) would cost.
#
# What stays a cluster job (not listed here): every guest job (derived from rule
# guest_job, rules/infra/guest.smk), the builds (kernel, agent, ftl-sim, FlashSim,
# filebench), every rule that runs ftl-sim or FlashSim on block traces (ftl_*,
# janusd_replay) and the device's flash/boot steps. A new rule is a cluster job unless
# it is named here; tests/test_slurm_plan.py checks that list against the planned jobs
# of a run.
# In a local run this list changes nothing.


localrules:
    # Trace generation (mobifrag.workloads): workloads/<scale>/...
    autoage_traces,
    capacity_traces,
    filldelete_fill_trace,
    filldelete_traces,
    scan_traces,
    treat_aging_trace,
    treat_journal_traces,
    treat_sqlite_prealloc_trace,
    ars_eval_sqlite_traces,
    ext4tune_aging_trace,
    user_latency_aging_trace,
    user_latency_install_traces,
    user_latency_tile_db,
    janusd_recurring_traces,
    # Mobibench's traces: fetched (the login node has the network a compute node may
    # lack), imported, counted
    ars_eval_mobibench_fetch,
    ars_eval_mobibench_trace,
    ars_eval_trace_stats,
    # IOzone's Debian package, fetched and unpacked (no build; the network again)
    iozone_fetch,
    # Table builders over the guests' snapshots and kept model replays
    concurrent_appenders_tables,
    autoage_tables,
    filldelete_tables,
    filldelete_free_space,
    capacity_tables,
    dispersed_tables,
    scan_tables,
    ars_table,
    ars_eval_table,
    ext4tune_tables,
    user_latency_table,
    user_latency_free_space,
    treat_prealloc_table,
    treat_free_space,
    treat_e4defrag_table,
    treat_e4defrag_flash_table,
    treat_journal_table,
    treat_sqlite_prealloc_tables,
    janusd_logical,
    janusd_physical,
    janusd_recurring_table,
    janusd_recurring_dof_table,
    janusd_dof_lp_table,
    ars_selection_dof,
    ars_selection_dataset,
    ars_selection_compare,
    ars_selection_select,
    # Figures, claims, provenance, the HTML report
    figure_stamp,
    figure,
    claims,
    check,
    provenance,
    claims_chart,
    report_html,
    # Small device-side packaging (docs/hikey960.md): no compiler, seconds each
    busybox_arm64,
    ramdisk_missing,
    boot_image,

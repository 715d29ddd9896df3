"""Test setup: the repository and this folder on sys.path, shared fixtures,
and the markers (spark, browser, z3, slow) given by where a test is.

Markers are given here, by file and test function, rather than in each
file: ``sh tests/run.sh --quick`` runs ``-m "not slow"``, and ``-m "not
spark"`` suits a machine without the [spark] extra. A test is slow when it
takes seconds (measured with ``--durations=0``); the quick tier keeps at
least one test of every module.
"""

import os
import sys

import pytest

TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS)
for path in (ROOT, TESTS):
    if path not in sys.path:
        sys.path.insert(0, path)

ALL = "*"  # every test of the file

# files whose tests need pyspark (and Java); the conformance table marks its own Spark cases
SPARK = {
    "modelcheck/engines/test_spark.py": ALL,
    "modelcheck/spark/test_blocks.py": ALL,
    "modelcheck/spark/test_cluster.py": ALL,
    "modelcheck/spark/test_lead.py": ALL,
    "modelcheck/spark/test_resume.py": ALL,
    "modelcheck/spark/test_resume_integrity.py": ALL,
    "modelcheck/spark/test_session.py": ALL,
    "modelcheck/spark/test_swarm.py": ALL,
    "modelcheck/spark/test_worker_fault.py": ALL,
    "test_cli_spark.py": ALL,
    "test_cli_spark_signals.py": ALL,
    "test_soak_signals.py": {"test_soak_spark"},
    "test_adversarial.py": {"test_a_spark_checkpoint_is_resumed_only_by_its_own_code_and_says_what_it_resumed"},
}

Z3 = {
    "modelcheck/backends/test_z3_backend.py": ALL,
    "modelcheck/engines/test_bmc.py": ALL,
    "modelcheck/capabilities/test_induction.py": ALL,
    "test_cli_z3.py": ALL,
    "test_cli_spec_files.py": {"test_prove_takes_a_path"},
    "examples/test_chang_roberts.py": {"test_z3_starts_from_every_initial_state"},
    "test_cli_interrupts.py": {"test_an_interrupted_proof_is_never_proved_whenever_the_interrupt_comes",
                               "test_an_interrupted_bounded_search_with_z3_reports_the_depth_reached"},
}

SLOW = {
    "test_cli_tla.py": {"test_an_unbounded_state_space_is_said_so_in_one_line"},
    "modelcheck/backends/test_numpy_codegen.py": {"test_batch_successors_and_predicates_match"},
    "modelcheck/backends/test_python_codegen.py": ALL,
    "modelcheck/backends/test_z3_backend.py": {
        "test_every_operator_translates_exactly", "test_later_steps_and_binary_selectors_admit_the_same_successors",
        "test_predicates_match_the_compiled_ones", "test_successor_sets_match_the_explicit_engine"},
    "modelcheck/engines/test_bfs.py": {
        "test_counterexample_is_a_behaviour_that_breaks_only_at_its_end", "test_kip320_defaults_hold",
        "test_kip320_first_try_three_replicas_breaks_strong_isr_in_13_states"},
    "modelcheck/engines/test_bmc.py": {
        "test_async_isr_agrees_with_breadth_first_search", "test_default_depth_is_said_out_loud",
        "test_every_encoding_choice_finds_the_same_length",
        "test_max_depth_counts_states_as_breadth_first_search_does", "test_no_false_alarm_on_kip320_to_depth_8",
        "test_shortest_violation_has_the_breadth_first_length"},
    "modelcheck/engines/test_conformance.py": {
        "test_checkpointing_engines_resume_to_the_same_count",
        "test_exhaustive_engines_count_and_find_shortest_violations", "test_symmetric_engines_count_the_same_orbits"},
    "modelcheck/engines/test_fast.py": {"test_fast_agrees_with_bfs", "test_kip320_defaults",
                                        "test_128_bit_fingerprints_change_nothing_found",
                                        "test_128_bit_fingerprints_under_symmetry_and_a_view"},
    "modelcheck/backends/test_compiled.py": {"test_compiled_numpy_and_python_agree_state_by_state_on_message_passing_specs"},
    "modelcheck/engines/test_kernels.py": {"test_a_kernel_taken_up_mid_search_changes_nothing"},
    "modelcheck/engines/test_spark.py": ALL,
    "modelcheck/engines/test_symmetric_search.py": {
        "test_engines_agree_under_symmetry", "test_kip320_with_two_replicas_has_tlcs_orbit_count",
        "test_the_orbit_sizes_add_up_to_the_count_without_symmetry"},
    "modelcheck/capabilities/liveness/test_kip320_live.py": {
        "test_the_calibration_lassos_have_the_shapes_tlc_reports", "test_the_engines_build_the_same_graph"},
    "modelcheck/capabilities/liveness/test_symmetric.py": {
        "test_the_stabiliser_keeps_r1_and_its_orbits_add_up_to_every_state",
        "test_three_replicas_give_the_verdicts_without_symmetry",
        "test_three_replicas_on_the_reference_engine_give_the_verdicts_without_symmetry",
        "test_two_replicas_give_the_verdicts_without_symmetry_and_tlcs"},
    "modelcheck/spark/test_cluster.py": ALL,
    "modelcheck/spark/test_resume.py": ALL,
    "modelcheck/spark/test_resume_integrity.py": {"test_an_undamaged_checkpoint_resumes_exactly_also_to_its_own_depth"},
    "modelcheck/spark/test_swarm.py": {"test_a_swarm_violation_replays", "test_the_same_seed_gives_the_same_swarm"},
    "modelcheck/spark/test_worker_fault.py": ALL,
    "modelcheck/spark/test_session.py": {"test_a_search_done_in_the_driver_does_not_wait_for_spark"},
    "modelcheck/search/test_canonical.py": {"test_every_member_of_an_orbit_gets_the_same_representative_from_within_it"},
    "modelcheck/search/test_checkpoint.py": {
        "test_ctrl_c_prints_partial_statistics_and_resume_completes", "test_max_states_means_the_same_on_every_engine",
        "test_resume_after_a_limit_gives_the_identical_result",
        "test_a_search_with_128_bit_fingerprints_resumes_to_the_same_count[numpy]"},
    "modelcheck/search/test_checkpoint_integrity.py": {
        "test_a_ctrl_c_during_a_save_leaves_the_last_checkpoint_and_no_temporary_file",
        "test_an_undamaged_checkpoint_resumes_to_the_full_count"},
    "modelcheck/runtime/test_dirlock.py": {"test_two_real_runs_into_one_checkpoint_directory"},
    "modelcheck/model/test_explain.py": {"test_strong_isr_names_the_missing_record_as_in_the_issue"},
    "modelcheck/capabilities/test_induction.py": {
        "test_base_case_failure_is_the_shortest_real_counterexample",
        "test_strong_isr_is_proved_by_5_induction_with_two_replicas"},
    "modelcheck/capabilities/test_symmetry.py": {"test_declared_symmetry_holds_on_every_reachable_state"},
    "modelcheck/model/test_trace.py": {"test_itf_is_readable_by_itf_py"},
    "modelcheck/presentation/viewer/test_html.py": {
        "test_a_kip966_check_off_trace_outlines_the_missing_record", "test_last_replica_standing_reads_as_kafka", "test_stepping_keeps_the_page_still",
        "test_steps_through_the_whole_trace", "test_the_lost_record_is_singled_out",
        "test_timeline_labels_break_between_words_and_parameters"},
    "specs/test_kafka_clients.py": {"test_whole_state_space_matches_tlc"},
    # three acceptors (the quick tier keeps the 513 states of one quorum of all three, and two acceptors' order)
    "examples/test_paxos.py": {"test_the_cfg_substitutes_the_definitions_the_spec_offers",
                               "test_general_quorums_give_tlcs_counts[{{a1, a2}, {a1, a3}}-2433]",
                               "test_general_quorums_give_tlcs_counts[{{a1}}-4305]"},
    "specs/test_kip320_consumer.py": {"test_switch_combinations_with_unclean_election"},
    "specs/test_kraft_kip966.py": {
        "test_a_reassignment_leaving_one_replica_never_acknowledges_its_write",
        "test_liveness_properties_that_tlc_finds_hold",
        "test_more_state_spaces_under_the_view_match_tlc_on_the_fast_engine", "test_shortest_violations_match_tlc",
        "test_state_space_under_the_view_matches_tlc",
        "test_whole_state_counts_are_tlc_s_with_only_the_discarded_requests_the_spec_reads"},
    "specs/test_kraft_reachability.py": {"test_a_check_said_to_be_out_of_reach_is_never_reached"},
    "specs/test_kraft_layout.py": {"test_a_fetch_response_of_an_earlier_leader_epoch_is_told_and_focused",
                                   "test_a_three_broker_kip966_counterexample_is_told_and_focused",
                                   "test_every_kind_of_state_and_step_is_drawn"},
    "specs/test_kraft_v3_5.py": {
        "test_a_stale_follower_entry_lets_a_deleted_replica_into_the_isr",
        "test_a_step_tlc_cannot_evaluate_stops_the_run_as_it_stops_tlc",
        "test_defaults_are_the_committed_configuration",
        "test_more_state_spaces_under_the_view_match_tlc_on_the_fast_engine"},
    "test_cli.py": {"test_graph_command"},
    "test_cli_full_disk.py": {"test_a_checkpoint_save_on_a_full_disk_keeps_the_last_one_and_the_report_says_both"},
    "test_cli_input_files.py": {
        "test_a_checkpoint_that_is_a_fifo_is_refused_without_waiting",
        "test_a_fifo_as_trace_is_refused_without_waiting", "test_an_endless_device_is_refused_at_once"},
    "test_cli_interrupts.py": {
        "test_an_interrupted_bfs_run_names_the_last_depth_it_found_whole",
        "test_an_interrupted_proof_is_never_proved_whenever_the_interrupt_comes",
        "test_sweep_stops_at_the_interrupted_row_and_reports_the_rows_done",
        "test_sweep_text_says_which_run_was_interrupted"},
    "test_cli_liveness.py": {"test_a_cfg_symmetry_line_checks_each_case_under_the_renamings_that_leave_it_alone"},
    "test_cli_sigterm.py": {
        "test_sigterm_saves_the_checkpoint_and_the_resumed_count_is_exact", "test_sigterm_stops_a_proof_with_exit_143"},
    "test_cli_spark.py": {
        "test_a_search_the_driver_finished_alone_says_so",
        "test_a_second_ctrl_c_aborts_a_spark_run_at_once_and_quietly",
        "test_ctrl_c_stops_a_local_run_at_the_end_of_the_level",
        "test_ctrl_c_while_executors_run_a_level_prints_no_spark_errors", "test_local_run_gives_the_bfs_json",
        "test_a_spec_file_runs_on_the_executors",
        "test_missing_java_is_one_line", "test_symmetry_on_spark_counts_orbits_and_traces_genuine_behaviours",
        "test_violation_report_trace_and_exit_12"},
    "test_cli_spark_signals.py": ALL,
    "test_cli_simulate.py": {"test_the_documented_seed_finds_the_first_try_violation"},
    "test_packaging.py": {"test_the_wheel_holds_the_specs_as_modelcheck_specs_and_no_top_level_specs"},
    "test_cli_symmetry.py": {"test_graph_with_symmetry_has_one_node_per_orbit"},
    "test_cli_temporal_limits.py": {"test_ctrl_c_during_a_temporal_run_gives_the_partial_report"},
    "test_soak_signals.py": ALL,
    "test_adversarial.py": {
        "test_a_kernel_copied_over_another_models_name_is_built_again_not_trusted",
        "test_a_library_cut_short_is_built_again_not_loaded",
        "test_a_foreign_library_over_the_canonicaliser_is_not_loaded",
        "test_a_library_planted_by_another_user_is_never_loaded",
        "test_a_second_user_without_a_writable_home_gets_the_verdict",
        "test_a_checkpoint_is_never_resumed_under_other_code",
        "test_a_spark_checkpoint_is_resumed_only_by_its_own_code_and_says_what_it_resumed"},
    "test_traces.py": {
        "test_committed_trace_is_what_the_checker_finds", "test_kip320_has_no_violation_at_the_same_constants",
        "test_kraft_traces_replay_and_are_explained",
        "test_tlc_s_guided_counterexample_is_a_behaviour_only_with_the_check_off",
        "test_tlc_s_guided_counterexample_is_stored_as_modelcheck_writes_traces"},
}

# Full-size runs: each takes from twenty seconds to a minute and a half of
# CI, most of them searching close to a million states or more. They stay tests (``pytest -m full_size``, which
# bench/bench_full_size.py runs and times), but the README's test command,
# and so CI, leaves them out; each is named by function, or by function and
# parameter id. What each pins is said where the suite keeps a smaller
# version of it.
FULL_SIZE = {
    # the one KRaft CHECK whose shortest counterexample takes a million-state search (23 states);
    # the suite still replays its committed trace (test_kraft_traces_replay_and_are_explained)
    "test_traces.py": {"test_committed_trace_is_what_the_checker_finds[kraft-kip966-no-fetch-epoch-check]"},
    # z3 to the 9- and 10-state violations: the suite keeps truncate-to-hw, kip101 and kafka-clients,
    # and test_z3_backend.py holds z3's encoding of kip279 and kip320-consumer to the explicit engine
    "modelcheck/engines/test_bmc.py": {
        "test_shortest_violation_has_the_breadth_first_length[kip279]",
        "test_shortest_violation_has_the_breadth_first_length[kip320-consumer]",
        "test_no_false_alarm_on_kip320_to_depth_8"},
    # the reference engine over kip320's 737,794 states (the fast engine's run of them stays, and the
    # reference engine's agreement with it on every spec's smaller configurations)
    "modelcheck/engines/test_bfs.py": {"test_kip320_defaults_hold"},
    # the Spark lead-in on the longer traces (kip101's stays)
    # signals at random moments on Spark (the deterministic Spark signal tests stay, and the soak of bfs and fast)
    "test_soak_signals.py": {"test_soak_spark"},
    # three replicas' 737,794 states without symmetry under the fair specifications (Spec's stays, and
    # every specification at two replicas, against TLC's verdicts)
    "modelcheck/capabilities/liveness/test_symmetric.py": {
        "test_three_replicas_give_the_verdicts_without_symmetry[FairFetchSpec]",
        "test_three_replicas_give_the_verdicts_without_symmetry[NoFairSpec]"},
    # Spark's orbits at three replicas (two replicas' stay, with TLC's count)
    # and kraft-kip966's 2,931,613 states under its VIEW (two configurations of about a thousand stay)
    "modelcheck/engines/test_spark.py": {"test_a_lead_in_finds_the_same_shortest_trace[kip320-first-try]",
                                         "test_a_lead_in_finds_the_same_shortest_trace[kip279]",
                                         "test_symmetry_counts_orbits_as_the_fast_engine_does[consts1]",
                                         "test_under_the_view_kip966_without_shutdowns_gives_tlcs_count"},
}

MARKERS = {"spark": SPARK, "z3": Z3, "slow": SLOW, "full_size": FULL_SIZE}


def pytest_collection_modifyitems(config, items):
    for item in items:
        where = os.path.relpath(str(item.path), TESTS).replace(os.sep, "/")
        function = item.originalname or item.name
        for marker, table in MARKERS.items():
            chosen = table.get(where, ())
            if chosen == ALL or function in chosen or item.name in chosen:
                item.add_marker(marker)
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker("browser")
    # The slow tests first (in their order), so that when the suite runs on
    # several processes (tests/run.sh) the last minutes are spent on quick
    # tests any idle process can take, not on one long test while the others wait.
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    """Every test runs in an empty directory of its own, so default trace
    files (modelcheck-out/) and anything else written to a relative path
    land there, never in the repository (checked at the end of the session)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


TREE_AT_START = pytest.StashKey[set]()  # the tree's state as the session began (clean_tree.py)


def is_controller(config) -> bool:
    """The process that runs the session: pytest itself, or xdist's controller (not one of its workers)."""
    return not hasattr(config, "workerinput")


def pytest_sessionstart(session):
    if is_controller(session.config):
        from clean_tree import tree_state
        session.config.stash[TREE_AT_START] = tree_state(ROOT)


def pytest_sessionfinish(session, exitstatus):
    if not is_controller(session.config) or TREE_AT_START not in session.config.stash:
        return
    from clean_tree import left_behind, tree_state
    left = left_behind(session.config.stash[TREE_AT_START], tree_state(ROOT))
    if left:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = "the tests left these in the repository (git status):\n" + "\n".join(f"  {line}" for line in left)
        if reporter is not None:
            reporter.write_line("")
            reporter.write_sep("=", "tree not clean", red=True)
            reporter.write_line(message)
        else:
            sys.stderr.write(message + "\n")
        if session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


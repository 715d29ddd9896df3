"""The KRaft configurations TLC was run on here, with its figures.

Each row: the constants (the module's .cfg with these changed), TLC's
distinct states, depth, verdict and counterexample length (breadth-first,
one worker, the VIEW), and TLC's wall seconds on this 2-core machine while
it was shared with other jobs (an upper bound; compare counts, not times).
``bench_kraft.py tlc`` checks the port against every row.
"""

CFG_INVARIANTS = ("LeaderCompletenessProperty", "LeaderCandidateCompletenessProperty",
                  "ReplicationQuorumSupersetProperty", "LogMatchingProperty", "MetadataLogMatchingProperty",
                  "ConsistentReadProperty", "NoCommittedRecordLostGlobally")
COMMITTED = {"BrokerCount": 3, "InitReplicationFactor": 3, "MinISR": 2, "InitIsrSize": 2, "CleanShutdownLimit": 0,
             "UncleanShutdownLimit": 1, "FenceBrokerLimit": 1, "LeaderShrinkIsrLimit": 0, "ReassignmentLimit": 0}
SMALL = {"BrokerCount": 2, "InitReplicationFactor": 2, "MinISR": 1, "InitIsrSize": 1, "CleanShutdownLimit": 0,
         "UncleanShutdownLimit": 0, "FenceBrokerLimit": 0, "LeaderShrinkIsrLimit": 0, "ReassignmentLimit": 0}
THREE = {**SMALL, "BrokerCount": 3, "InitReplicationFactor": 3, "MinISR": 2, "InitIsrSize": 3}

# name: (constants, TLC distinct, depth, verdict, counterexample states, TLC wall seconds)
TLC = {
    "v01": (SMALL, 130, 15, "ok", None, 2.3),
    "v02": ({**SMALL, "InitIsrSize": 2}, 14, 8, "ok", None, 1.7),
    "v03": ({**SMALL, "InitIsrSize": 2, "CleanShutdownLimit": 1}, 938, 22, "ok", None, 2.8),
    "v04": ({**SMALL, "InitIsrSize": 2, "FenceBrokerLimit": 1}, 1260, 21, "ok", None, 2.7),
    "v05": ({**SMALL, "InitIsrSize": 2, "LeaderShrinkIsrLimit": 1}, 254, 16, "ok", None, 2.7),
    "v06": ({**SMALL, "InitIsrSize": 2, "UncleanShutdownLimit": 1}, 945, 25, "ok", None, 2.7),
    "v08": ({**SMALL, "BrokerCount": 3, "InitIsrSize": 2, "ReassignmentLimit": 1}, 12472, 29, "ok", None, 8.6),
    "v09": (THREE, 128, 17, "ok", None, 2.6),
    "v10": ({**THREE, "InitIsrSize": 2}, 1163, 25, "ok", None, 3.2),
    "v12": ({**THREE, "UncleanShutdownLimit": 1}, 101378, 40, "ok", None, 20.7),
    "v13": ({**THREE, "FenceBrokerLimit": 1}, 152650, 36, "ok", None, 33.0),
    "v14": ({**THREE, "LeaderShrinkIsrLimit": 1}, 17621, 28, "ok", None, 15.8),
    "v15": ({**SMALL, "BrokerCount": 3, "ReassignmentLimit": 1}, 306451, 40, "ok", None, 228.3),
    "v17": ({**THREE, "CleanShutdownLimit": 1}, 97800, 37, "ok", None, 541.5),
    "lrs_v_b2i1": ({**SMALL, "UncleanShutdownLimit": 1, "AvoidLastReplicaStanding": "FALSE"}, 254, 8,
                   "LeaderCompletenessProperty", 8, 7.3),
    "lrs_v_b2i1_avoid": ({**SMALL, "UncleanShutdownLimit": 1}, 2326, 30, "ok", None, 11.6),
    "lrs_v_b2f1": ({**SMALL, "InitIsrSize": 2, "UncleanShutdownLimit": 1, "FenceBrokerLimit": 1,
                    "AvoidLastReplicaStanding": "FALSE"}, 1020, 8, "LeaderCompletenessProperty", 8, 5.8),
    "lrs_v_b2f1_avoid": ({**SMALL, "InitIsrSize": 2, "UncleanShutdownLimit": 1, "FenceBrokerLimit": 1}, 34745, 35,
                         "ok", None, 29.6),
    "lrs_v_b2m2f1": ({**SMALL, "MinISR": 2, "InitIsrSize": 2, "UncleanShutdownLimit": 1, "FenceBrokerLimit": 1,
                      "AvoidLastReplicaStanding": "FALSE"}, 919, 8, "LeaderCompletenessProperty", 8, 7.4),
    "v19": ({**COMMITTED, "AvoidLastReplicaStanding": "FALSE"}, 6602, 8, "LeaderCompletenessProperty", 8, 130.8),
    "v07": ({**SMALL, "InitIsrSize": 2, "UncleanShutdownLimit": 1, "AvoidLastReplicaStanding": "FALSE"}, 945, 25, "ok",
            None, 2.4),
    "v18": ({**THREE, "MinISR": 1, "UncleanShutdownLimit": 1, "AvoidLastReplicaStanding": "FALSE"}, 101378, 40, "ok",
            None, 728.7),
    "v20": ({**SMALL, "MinISR": 2, "InitIsrSize": 2, "CleanShutdownLimit": 1, "FenceBrokerLimit": 1}, 44773, 36, "ok",
            None, 334.3),
    "lrs_v_b1": ({**SMALL, "BrokerCount": 1, "InitReplicationFactor": 1, "UncleanShutdownLimit": 1,
                  "AvoidLastReplicaStanding": "FALSE"}, 15, 7, "ok", None, 4.6),
    "lrs_v_b1_avoid": ({**SMALL, "BrokerCount": 1, "InitReplicationFactor": 1, "UncleanShutdownLimit": 1}, 2, 2, "ok",
                       None, 5.6),
    "lrs_v_b2i1_nclg": ({**SMALL, "UncleanShutdownLimit": 1, "AvoidLastReplicaStanding": "FALSE"}, 49, 5,
                        "NoCommittedRecordLostGlobally", 5, 3.3),
    "lrs_v_b2s1": ({**SMALL, "InitIsrSize": 2, "UncleanShutdownLimit": 1, "LeaderShrinkIsrLimit": 1,
                    "AvoidLastReplicaStanding": "FALSE"}, 588, 9, "LeaderCompletenessProperty", 9, 11.7),
    "lrs_v_b2s1_avoid": ({**SMALL, "InitIsrSize": 2, "UncleanShutdownLimit": 1, "LeaderShrinkIsrLimit": 1}, 11475, 32,
                         "ok", None, 26.1),
    "lrs_v_b2m2f1_avoid": ({**SMALL, "MinISR": 2, "InitIsrSize": 2, "UncleanShutdownLimit": 1, "FenceBrokerLimit": 1},
                           33794, 36, "ok", None, 32.1),
    "lrs_v_b2m2s1": ({**SMALL, "MinISR": 2, "InitIsrSize": 2, "UncleanShutdownLimit": 1, "LeaderShrinkIsrLimit": 1,
                      "AvoidLastReplicaStanding": "FALSE"}, 505, 9, "LeaderCompletenessProperty", 9, 4.5),
    "lrs_v_b2m2s1_avoid": ({**SMALL, "MinISR": 2, "InitIsrSize": 2, "UncleanShutdownLimit": 1,
                            "LeaderShrinkIsrLimit": 1}, 11847, 31, "ok", None, 9.6),
    "chk_c524": ({**SMALL, "IsrJoinRequiresFetch": "FALSE"}, 115, 8, "LeaderCandidateCompletenessProperty", 8, 5.2),
    "chk_c526": ({**SMALL, "IsrJoinRequiresHighWatermark": "FALSE"}, 43, 7, "LeaderCandidateCompletenessProperty",
                 7, 5.7),
    # found by the port on three brokers, then confirmed with TLC (the CHECK line turned off in a copy of the module)
    "chk_c528_v12": ({**THREE, "UncleanShutdownLimit": 1, "IsrJoinRequiresEpochStart": "FALSE"}, 48681, 22,
                     "LeaderCandidateCompletenessProperty", 22, 17.0),
    "chk_c449_v12": ({**THREE, "UncleanShutdownLimit": 1, "IsrJoinChecksBrokerEpoch": "FALSE"}, 28584, 19,
                     "LeaderCandidateCompletenessProperty", 19, 12.0),
    "chk_c459_b2fs": ({**SMALL, "InitIsrSize": 2, "FenceBrokerLimit": 1, "LeaderShrinkIsrLimit": 1,
                       "AlterPartitionChecksPartitionEpoch": "FALSE"}, 2265, 11, "ReplicationQuorumSupersetProperty", 11,
                      31.8),
    # two reassignments: a re-elected leader keeps a stale entry for a follower that deleted its replica
    # (the CHECK of line 346 off), and the same with it kept
    "chk_c346_b2r2": ({**SMALL, "InitIsrSize": 2, "ReassignmentLimit": 2, "ResetStaleFollowerState": "FALSE"}, 2161,
                      13, "LeaderCandidateCompletenessProperty", 13, 8.0),
    "chk_c346_b2r2_kept": ({**SMALL, "InitIsrSize": 2, "ReassignmentLimit": 2}, 3710, 27, "ok", None, 9.0),
    "vab_c2": ({**SMALL, "InitIsrSize": 2, "FenceBrokerLimit": 1, "Values": "{A,B}"}, 84, 5, "error", 4, 38.1),
}
KSMALL = {"BrokerCount": 2, "InitReplicationFactor": 2, "MinISR": 1, "InitIsrSize": 1, "NoDataLossShutdownLimit": 0,
          "DataLossShutdownLimit": 0, "FenceBrokerLimit": 0, "LeaderShrinkIsrLimit": 0, "ReassignmentLimit": 0}
KTHREE = {**KSMALL, "BrokerCount": 3, "InitReplicationFactor": 3, "MinISR": 2, "InitIsrSize": 3}
# kraft-kip966 (its invariant list adds MinIsrRecoveryQuorum)
TLC_KIP966 = {
    "k_calib": (KSMALL, 130, 15, "ok", None, 2.4),
    "k01": ({**KSMALL, "InitIsrSize": 2}, 14, 8, "ok", None, 1.8),
    "k02": ({**KSMALL, "InitIsrSize": 2, "NoDataLossShutdownLimit": 1}, 1079, 22, "ok", None, 2.4),
    "k03": ({**KSMALL, "InitIsrSize": 2, "FenceBrokerLimit": 1}, 1260, 21, "ok", None, 2.5),
    "k04": ({**KSMALL, "InitIsrSize": 2, "LeaderShrinkIsrLimit": 1}, 254, 16, "ok", None, 2.0),
    "k05": ({**KSMALL, "InitIsrSize": 2, "DataLossShutdownLimit": 1}, 945, 25, "ok", None, 2.3),
    "k06": ({**KSMALL, "BrokerCount": 3, "InitIsrSize": 2, "ReassignmentLimit": 1}, 12472, 29, "ok", None, 8.3),
    "k07": (KTHREE, 128, 17, "ok", None, 1.7),
    "k08": ({**KTHREE, "InitIsrSize": 2}, 1163, 25, "ok", None, 2.4),
    "k10": ({**KTHREE, "DataLossShutdownLimit": 1}, 101378, 40, "ok", None, 33.7),
    "k11": ({**KTHREE, "FenceBrokerLimit": 1}, 152650, 36, "ok", None, 56.7),
    "k12": ({**KTHREE, "LeaderShrinkIsrLimit": 1}, 14831, 26, "ok", None, 18.4),
    "k13": ({**KSMALL, "BrokerCount": 3, "ReassignmentLimit": 1}, 306451, 40, "ok", None, 244.5),
    "lrs_k_b2i1": ({**KSMALL, "DataLossShutdownLimit": 1}, 4428, 30, "ok", None, 10.3),
    "lrs_k_b2f1": ({**KSMALL, "InitIsrSize": 2, "DataLossShutdownLimit": 1, "FenceBrokerLimit": 1}, 40719, 35, "ok",
                   None, 43.4),
    "lrs_k_b2m2f1": ({**KSMALL, "MinISR": 2, "InitIsrSize": 2, "DataLossShutdownLimit": 1, "FenceBrokerLimit": 1},
                     282201, 41, "ok", None, 157.3),
    "lrs_k_b2i1_nclg": ({**KSMALL, "DataLossShutdownLimit": 1}, 49, 5, "NoCommittedRecordLostGlobally", 5, 2.5),
    "k15": ({**KTHREE, "NoDataLossShutdownLimit": 1}, 101976, 37, "ok", None, 191.9),
    "k16": ({**KTHREE, "MinISR": 1, "DataLossShutdownLimit": 1}, 101378, 40, "ok", None, 193.2),
    "k17": ({**KSMALL, "MinISR": 2, "InitIsrSize": 2, "NoDataLossShutdownLimit": 1, "FenceBrokerLimit": 1}, 356656, 39,
            "ok", None, 563.3),
    "lrs_k_b1": ({**KSMALL, "BrokerCount": 1, "InitReplicationFactor": 1, "DataLossShutdownLimit": 1}, 14, 7, "ok", None,
                 6.9),
    "lrs_k_b2s1": ({**KSMALL, "InitIsrSize": 2, "DataLossShutdownLimit": 1, "LeaderShrinkIsrLimit": 1}, 13417, 32, "ok",
                   None, 16.1),
    "lrs_k_b2m2s1": ({**KSMALL, "MinISR": 2, "InitIsrSize": 2, "DataLossShutdownLimit": 1, "LeaderShrinkIsrLimit": 1},
                     109406, 36, "ok", None, 40.0),
    "chk_k_c524": ({**KSMALL, "IsrJoinRequiresFetch": "FALSE"}, 115, 8, "LeaderCandidateCompletenessProperty", 8, 102.4),
    "chk_k_c526": ({**KSMALL, "IsrJoinRequiresHighWatermark": "FALSE"}, 43, 7, "LeaderCandidateCompletenessProperty", 7,
                   89.1),
    "chk_k_c524_b2fs": ({**KSMALL, "InitIsrSize": 2, "FenceBrokerLimit": 1, "LeaderShrinkIsrLimit": 1,
                         "AlterPartitionChecksPartitionEpoch": "FALSE"}, 2265, 11, "ReplicationQuorumSupersetProperty",
                        11, 28.8),
    # a registration response of an earlier incarnation accepted (the CHECK of the main module's line 197)
    "chk_k_c197_nd1d1": ({**KSMALL, "NoDataLossShutdownLimit": 1, "DataLossShutdownLimit": 1,
                          "RegistrationMatchesIncarnation": "FALSE"}, 4811, 10, "LeaderCompletenessProperty", 10, 9.6),
    # three brokers, one data-loss shutdown (k10) with a CHECK off, TLC on a copy of the module with that line off
    "chk_k_c580_k10": ({**KTHREE, "DataLossShutdownLimit": 1, "IsrJoinRequiresEpochStart": "FALSE"}, 48681, 22,
                       "LeaderCandidateCompletenessProperty", 22, 102.1),
    "chk_k_c514_k10": ({**KTHREE, "DataLossShutdownLimit": 1, "IsrJoinChecksBrokerEpoch": "FALSE"}, 28584, 19,
                       "LeaderCandidateCompletenessProperty", 19, 105.3),
    # the stale follower entry (line 396) off and kept, as chk_c346_b2r2 for 3.5
    "chk_k_c396_b2r2": ({**KSMALL, "InitIsrSize": 2, "ReassignmentLimit": 2, "ResetStaleFollowerState": "FALSE"},
                        2161, 13, "LeaderCandidateCompletenessProperty", 13, 11.0),
    "chk_k_c396_b2r2_kept": ({**KSMALL, "InitIsrSize": 2, "ReassignmentLimit": 2}, 3710, 27, "ok", None, 21.0),
    # a fetch response of an earlier leader epoch acted on (line 1147): MinISR 2, three fencings
    "chk_k_c1147_b2m2f3": ({**KSMALL, "MinISR": 2, "InitIsrSize": 2, "FenceBrokerLimit": 3,
                           "FetchResponseMatchesEpoch": "FALSE"}, 1009718, 23, "LeaderCandidateCompletenessProperty",
                          23, 302.0),
}
# The .cfg's rule: NoCommittedRecordLostGlobally is left out when MinISR = UncleanShutdownLimit
# (DataLossShutdownLimit under KIP-966).
WITHOUT_NCLG = {"v06", "v07", "lrs_v_b1", "lrs_v_b1_avoid", "lrs_v_b2i1", "lrs_v_b2i1_avoid", "lrs_v_b2f1",
                "lrs_v_b2f1_avoid", "lrs_v_b2s1", "lrs_v_b2s1_avoid", "k05", "lrs_k_b1", "lrs_k_b2i1", "lrs_k_b2f1",
                "lrs_k_b2s1", "chk_k_c197_nd1d1"}
KIP966_INVARIANTS = CFG_INVARIANTS[:-1] + ("MinIsrRecoveryQuorum", "NoCommittedRecordLostGlobally")

# Timed against TLC run by run (``bench_kraft.py versus``): the largest configurations TLC finishes here in
# minutes. Two brokers, both in sync, MinISR 2, three fencings: the fetcher's pending responses across leader
# epochs, the case of the CHECK at line 1147, with every check kept.
VERSUS = {
    "k_b2m2f3": ("kraft-kip966", {**KSMALL, "MinISR": 2, "InitIsrSize": 2, "FenceBrokerLimit": 3}),
    "v_b2m2f3": ("kraft-3.5", {**SMALL, "MinISR": 2, "InitIsrSize": 2, "FenceBrokerLimit": 3}),
}

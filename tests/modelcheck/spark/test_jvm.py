from modelcheck.spark.jvm import DaemonShutdownFilter, log4j_config


def test_log_levels():
    assert "rootLogger.level = error" in log4j_config(False, False)  # Spark's warnings only with --verbose
    assert "logger.shell.level = error" in log4j_config(False, False)
    assert "NativeCodeLoader" in log4j_config(False, False)
    assert "rootLogger.level = info" in log4j_config(True, False)
    assert "must not be on the local filesystem" in log4j_config(False, True)


def test_jvm_output_filter_drops_only_daemon_shutdown_noise():
    f = DaemonShutdownFilter(("WARNING: Using incubator",))
    noise = ["Traceback (most recent call last):\n",
             '  File ".../pyspark.zip/pyspark/daemon.py", line 95, in worker\n',
             "BrokenPipeError: [Errno 32] Broken pipe\n"]
    real = ["Traceback (most recent call last):\n", '  File "x.py", line 1, in f\n', "ValueError: bad\n"]
    out = [line for text in ["WARNING: Using incubator modules\n", *noise, "spark: WARN x\n", *real]
           for line in f.feed(text)]
    assert out == ["spark: WARN x\n", *real]


def test_two_workers_broken_pipes_interleaved_are_dropped_too():
    f = DaemonShutdownFilter()
    frame = '  File ".../pyspark.zip/pyspark/daemon.py", line 95, in worker\n'
    interleaved = ["Traceback (most recent call last):\n", "Traceback (most recent call last):\n", frame, frame,
                   "BrokenPipeError: [Errno 32] Broken pipe\n", frame, "BrokenPipeError: [Errno 32] Broken pipe\n"]
    out = [line for text in [*interleaved, "level 1\n"] for line in f.feed(text)]
    assert out == ["level 1\n"]


def summarised(lines: list[str]) -> list[str]:
    from modelcheck.spark.jvm import SparkLogSummary
    log = SparkLogSummary()
    return [out for line in lines for out in log.feed(line + "\n")]


# What a port that answers but is not a Spark master made Spark print (the
# first of its three rounds, stack traces cut to two frames here).
NOT_A_MASTER = """\
spark: WARN TransportChannelHandler: Exception in connection from 127.0.0.1/127.0.0.1:53791
java.lang.IllegalArgumentException: Too large frame: 5211883372140375592
\tat org.apache.spark.network.util.JavaUtils.checkArgument(JavaUtils.java:759)
\tat java.base/java.lang.Thread.run(Thread.java:840)
spark: ERROR TransportResponseHandler: Still have 1 requests outstanding when connection from 127.0.0.1/127.0.0.1:53791 is closed
spark: WARN StandaloneAppClient$ClientEndpoint: Failed to connect to master 127.0.0.1:53791
org.apache.spark.SparkException: Exception thrown in awaitResult: 
\tat org.apache.spark.util.SparkThreadUtils$.awaitResult(SparkThreadUtils.scala:70)
Caused by: java.io.IOException: Connection from 127.0.0.1/127.0.0.1:53791 closed
\t... 1 more
spark: ERROR TransportClient: Failed to send RPC RPC 7222810552993371680 to 127.0.0.1/127.0.0.1:53791
io.netty.channel.StacklessClosedChannelException
\tat io.netty.channel.AbstractChannel$AbstractUnsafe.write(Object, ChannelPromise)(Unknown Source)
spark: WARN NettyRpcEnv: Ignored failure: java.io.IOException: Failed to send RPC RPC 7222810552993371680
spark: ERROR StandaloneSchedulerBackend: Application has been killed. Reason: All masters are unresponsive! Giving up.""".splitlines()


def test_stack_traces_and_connection_chatter_are_left_out():
    assert summarised(NOT_A_MASTER) == [
        "spark: WARN StandaloneAppClient$ClientEndpoint: Failed to connect to master 127.0.0.1:53791\n",
        "spark: ERROR StandaloneSchedulerBackend: Application has been killed. Reason: All masters are "
        "unresponsive! Giving up.\n"]


# The shape of what follows a worker killed mid-run (Spark 4's messages).
LOST_WORKER = """\
spark: ERROR TaskSchedulerImpl: Lost executor 1 on 127.0.0.1: Remote RPC client disassociated. Likely due to containers exceeding thresholds, or network issues. Check driver logs for WARN messages.
spark: WARN TaskSetManager: Lost task 1.0 in stage 12.0 (TID 40) (127.0.0.1 executor 1): ExecutorLostFailure (executor 1 exited caused by one of the running tasks) Reason: Remote RPC client disassociated.
spark: ERROR TaskSchedulerImpl: Lost executor 1 on 127.0.0.1: worker lost
spark: WARN TaskSetManager: Lost task 0.0 in stage 13.0 (TID 42) (127.0.0.1 executor 0): FetchFailed(null, shuffleId=3, mapIndex=-1, mapId=-1, reduceId=0, message=
org.apache.spark.shuffle.MetadataFetchFailedException: Missing an output location for shuffle 3 partition 0
\tat org.apache.spark.MapOutputTracker$.validateStatus(MapOutputTracker.scala:1768)
\tat java.base/java.lang.Thread.run(Thread.java:840)
)
spark: WARN DAGScheduler: Resubmitted ShuffleMapTask(12, 1), so marking it as still running.
spark: ERROR TaskSchedulerImpl: Ignoring update with state FINISHED for TID 208 because its task set is gone (this is likely the result of receiving duplicate task finished status updates) or its executor has been marked as failed.
spark: WARN StandaloneSchedulerBackend$StandaloneDriverEndpoint: Ignored task status update (208 state FINISHED) from unknown executor with ID 0
spark: WARN SomethingElse: a warning that matters""".splitlines()


def test_a_lost_executor_is_one_line_and_the_cascade_after_it_is_left_out():
    assert summarised(LOST_WORKER) == ["spark: lost executor 1; its tasks were re-run\n",
                                       "spark: WARN SomethingElse: a warning that matters\n"]


def test_output_that_is_not_spark_log_passes():
    assert summarised(["spark: WARN X: w", "Error: the JVM could not start"]) == \
        ["spark: WARN X: w\n", "Error: the JVM could not start\n"]


def test_the_shell_banner_spark_prints_at_a_level_not_warn_is_dropped():
    from modelcheck.spark.jvm import JVM_NOISE
    f = DaemonShutdownFilter(JVM_NOISE)
    banner = ['Setting default log level to "WARN".\n',
              "To adjust logging level use sc.setLogLevel(newLevel). For SparkR, use setLogLevel(newLevel).\n"]
    assert [out for line in [*banner, "spark: ERROR x\n"] for out in f.feed(line)] == ["spark: ERROR x\n"]

from modelcheck.spark.jvm import DaemonShutdownFilter, log4j_config


def test_log_levels():
    assert "rootLogger.level = warn" in log4j_config(False, False)
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

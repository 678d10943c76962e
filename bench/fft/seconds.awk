# seconds.awk - from fft's output lines, print "slaves seconds" for every
# timed forward pass that passed its check (fields are key=value, main.c).
/^fft / && / PASS$/ {
    delete f
    for (i = 2; i <= NF; i++)
        if (split($i, kv, "=") == 2)
            f[kv[1]] = kv[2]
    if (f["pass"] == "forward")
        print f["slaves"], f["seconds"]
}

try:
    from .entry import main  # deferred: inside the try, so an interrupt while importing is caught
except KeyboardInterrupt:  # an interrupt before entry's handlers were in (its first lines): as they would say it
    import os  # deferred: only an interrupted start-up needs it (already loaded by the interpreter)

    os.write(2, b"cksolve: interrupted by SIGINT\n")
    os._exit(130)

main()

try:
    from .entry import main  # deferred into the try: an interrupt during the import is caught below
except KeyboardInterrupt:  # an interrupt before entry's handlers were in (its first lines): as they would say it
    import os  # deferred: needed only on an interrupt

    os.write(2, b"cksolve: interrupted by SIGINT\n")
    os._exit(130)

main()

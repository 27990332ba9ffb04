try:
    from .entry import main
except KeyboardInterrupt:  # an interrupt before entry's handlers were in (its first lines): as they would say it
    import os

    os.write(2, b"cksolve: interrupted by SIGINT\n")
    os._exit(130)

main()

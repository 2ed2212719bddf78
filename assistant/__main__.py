from assistant.cli import main

raise SystemExit(main())

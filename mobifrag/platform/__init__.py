"""Platform runs: the study's kernel under QEMU or a real device over adb, and the
dispatcher between them."""

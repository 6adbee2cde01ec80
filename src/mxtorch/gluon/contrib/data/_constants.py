"""Text-data constants of MXNet 1.9.1's ``gluon.contrib.data``."""
EOS_TOKEN = "<eos>"

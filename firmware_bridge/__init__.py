"""The LED board beside the table: serial protocol, host bridge, fake board, firmware."""

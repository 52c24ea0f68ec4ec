"""What a person reads: tables in a terminal (`terminal`) and the safe HTML lines of the pages a student reads
(`page_markup`).
"""

# Dates in English as a reader anywhere takes them: the day before the month's name,
# never "12/01/2026" (1 December or 12 January?), and the time on a 24-hour clock as
# the table's own phones show it, not "4:10 a.m.". Portuguese keeps Django's formats,
# which already write "1 de dezembro de 2026" and "16:10".
DATE_FORMAT = "j F Y"
SHORT_DATE_FORMAT = "j M Y"
DATETIME_FORMAT = "j F Y, H:i"
SHORT_DATETIME_FORMAT = "j M Y, H:i"
TIME_FORMAT = "H:i"
MONTH_DAY_FORMAT = "j F"
YEAR_MONTH_FORMAT = "F Y"

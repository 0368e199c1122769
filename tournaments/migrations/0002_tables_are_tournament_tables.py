"""The nights of the tables already made are tournaments' tables: no rematch there."""

from django.db import migrations


def mark(apps, schema_editor):
    Table = apps.get_model("tournaments", "Table")
    Night = apps.get_model("matches", "Night")
    Night.objects.filter(pk__in=Table.objects.values("night")).update(tournament_table=True)


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0009_walkover_and_tournament_tables"),
        ("tournaments", "0001_initial"),
    ]

    operations = [migrations.RunPython(mark, migrations.RunPython.noop)]

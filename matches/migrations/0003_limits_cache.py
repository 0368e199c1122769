from django.core.management import call_command
from django.db import migrations


def create_cache_tables(apps, schema_editor):
    """The table of each database cache in CACHES (the rate limits' counters), so
    that migrate alone readies a database, the tests' own included. Tables that
    exist are left as they are; caches that are not in the database need none."""
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0002_next_rubber"),
    ]

    operations = [
        migrations.RunPython(create_cache_tables, migrations.RunPython.noop),
    ]

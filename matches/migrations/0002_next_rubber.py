import django.db.models.deletion
from django.db import migrations, models


def link_rematches(apps, schema_editor):
    """Each rubber's next one, from the history: the first rematch it started."""
    Event = apps.get_model("matches", "Event")
    Match = apps.get_model("matches", "Match")
    linked = set()
    for event in Event.objects.filter(action="rematch").order_by("id"):
        following = (event.after or {}).get("match")
        if event.match_id in linked or following is None:
            continue
        Match.objects.filter(pk=following, previous__isnull=True).update(previous=event.match_id)
        linked.add(event.match_id)


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="previous",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="following",
                to="matches.match",
            ),
        ),
        migrations.RunPython(link_rematches, migrations.RunPython.noop),
    ]

"""The night owns its join and watch links (they lead to its rubber in play); a match
keeps its house rule after a redeal; a seat remembers whom it was freed from, and a
request for a seat whom it seated."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import matches.models.base


def links_to_nights(apps, schema_editor):
    """Each night takes the links of its newest rubber, the ones its table shares now."""
    Night = apps.get_model("matches", "Night")
    Match = apps.get_model("matches", "Match")
    for night in Night.objects.all():
        newest = Match.objects.filter(night=night).order_by("-created", "-id").first()
        night.join_token = newest.join_token if newest else matches.models.base.new_token()
        night.watch_token = newest.watch_token if newest else matches.models.base.new_token()
        night.save(update_fields=["join_token", "watch_token"])


class Migration(migrations.Migration):

    dependencies = [
        ("matches", "0005_table_mode"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="night",
            name="join_token",
            field=models.CharField(max_length=43, null=True),
        ),
        migrations.AddField(
            model_name="night",
            name="watch_token",
            field=models.CharField(max_length=43, null=True),
        ),
        migrations.RunPython(links_to_nights, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="night",
            name="join_token",
            field=models.CharField(
                default=matches.models.base.new_token, max_length=43, unique=True
            ),
        ),
        migrations.AlterField(
            model_name="night",
            name="watch_token",
            field=models.CharField(
                default=matches.models.base.new_token, max_length=43, unique=True
            ),
        ),
        migrations.RemoveField(model_name="match", name="join_token"),
        migrations.RemoveField(model_name="match", name="watch_token"),
        migrations.AddField(
            model_name="match",
            name="redeal_rule",
            field=models.CharField(
                choices=[
                    ("next_dealer", "the next player deals"),
                    ("same_dealer", "the same dealer deals again (melar)"),
                ],
                default="next_dealer",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="seat",
            name="freed_from",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="seatrequest",
            name="newcomer",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="seatrequest",
            name="seated",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
    ]

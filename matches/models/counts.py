"""The rate limits' counts (``matches/limits.py``): how many attempts or reads one address
made in one window of a limit, as a plain number in a row every process shares."""

from django.db import models, transaction
from django.db.models import F

ADDRESS_LENGTH = 100


def _key(scope, address, ends):
    """The fields that name one count. Every request with no address counts as one, and
    anything longer than an address is cut to fit."""
    return {"scope": scope, "address": (address or "")[:ADDRESS_LENGTH], "ends": ends}


class LimitCountQuerySet(models.QuerySet):
    def of(self, scope, address, ends):
        """The count of ``address`` in ``scope``'s window that ends at ``ends``; 0 if none."""
        counted = self.filter(**_key(scope, address, ends))
        return counted.values_list("count", flat=True).first() or 0

    def ended(self, now):
        return self.filter(ends__lte=now)


class LimitCount(models.Model):
    scope = models.CharField(max_length=16)  # a key of settings.RATE_LIMITS
    address = models.CharField(max_length=ADDRESS_LENGTH)
    ends = models.DateTimeField()  # the end of the window counted
    count = models.PositiveIntegerField(default=0)

    objects = LimitCountQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "address", "ends"], name="one_count_a_window"),
        ]
        indexes = [models.Index(fields=["ends"])]

    def __str__(self):
        return f"{self.scope} {self.address}: {self.count} until {self.ends:%H:%M:%S}"

    @classmethod
    def add(cls, scope, address, ends, n=1):
        """Count ``n`` more for ``address`` in ``scope``'s window that ends at ``ends``, and
        return the count now. One increment in the database, so attempts at once from any
        process are each counted; the row holds its lock until the count is read back."""
        key = _key(scope, address, ends)
        counted = cls.objects.filter(**key)
        with transaction.atomic():
            if not counted.update(count=F("count") + n):
                # The first of this window, unless another process makes it meanwhile.
                _row, made = cls.objects.get_or_create(**key, defaults={"count": n})
                if not made:
                    counted.update(count=F("count") + n)
            return counted.values_list("count", flat=True).get()

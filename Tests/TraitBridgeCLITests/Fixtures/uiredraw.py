"""What the browser fixtures share: a step retried when the page's live redraw replaced its element."""
import time

from selenium.common.exceptions import StaleElementReferenceException


def again(step, tries=10):
    """Runs one step that holds an element, again when a live redraw replaced that element under it
    (the page redraws a card whenever its device changes, so any reference may go stale)."""
    for attempt in range(tries):
        try:
            return step()
        except StaleElementReferenceException:
            if attempt == tries - 1:
                raise
            time.sleep(0.1)

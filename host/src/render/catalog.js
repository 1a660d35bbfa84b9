// One step of reading a catalog in the page: scroll to the bottom (lazy
// content), click a visible "load more" control that stays on the page.
// Resolves to whether the page grew or a control was clicked.
async function (scroll, click) {
  const root = document.documentElement;
  const count = () => (document.body ? document.body.getElementsByTagName("*").length : 0);
  const before = count();
  const height = root.scrollHeight;
  if (scroll) window.scrollTo(0, height);
  let clicked = false;
  if (click) {
    const words = /\b(load|show|see|view)\s+more\b|mehr\s+(laden|anzeigen)|voir\s+plus|afficher\s+plus|cargar\s+m[aá]s|ver\s+m[aá]s|mostra\s+altr|carica\s+altr|meer\s+laden|toon\s+meer|visa\s+fler|vis\s+flere|n[aä]yt[aä]\s+lis[aä][aä]|zobacz\s+wi[eę]cej/i;
    const stays = (el) => {
      if (el.tagName !== "A" || !el.getAttribute("href")) return true;
      const to = new URL(el.href, location.href);
      return to.pathname === location.pathname && to.search === location.search;
    };
    const controls = document.querySelectorAll("button, a, [role=button], input[type=button], input[type=submit]");
    for (const el of controls) {
      const label = (el.innerText || el.value || el.getAttribute("aria-label") || "").trim();
      if (label.length < 60 && words.test(label) && !el.disabled && el.offsetParent !== null && stays(el)) {
        el.click();
        clicked = true;
        break;
      }
    }
  }
  await new Promise((r) => setTimeout(r, 250));
  return clicked || count() > before || root.scrollHeight > height;
}

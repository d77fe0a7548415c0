"""The purchase order as a printable document (採購單, DESIGN §16), in the reader's language.

reportlab draws it in WenQuanYi Micro Hei (a TrueType font with Latin and Traditional Chinese
glyphs, from the PyPI package paperang-p2-fonts-cjk, so `make run` and the image need nothing from
apt) and embeds the subset it used: the PDF reads the same in a viewer with no CJK font. Every figure
is the PO as issued (`po.purchase_order_of`); the tax is the one on it (`tax.business_tax`)."""
import io
from functools import cache
from importlib.resources import files
from xml.sax.saxutils import escape

from django.conf import settings
from django.utils import timezone
from django.utils.translation import get_language, gettext as _
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from agentstate.models import ApprovalDecision

from procurement.words.labels import item_label
from procurement.words.money import ntd
from procurement.words.people import person_label
from procurement.invoicing.po import PurchaseOrder
from procurement.purchase.requests import needed_by_of

FONT = "WenQuanYiMicroHei"


@cache
def _register_font() -> None:
    """Reading the 5 MB collection takes about half a second: once a process, on its first PDF."""
    path = files("paperang_p2_fonts_cjk") / "fonts" / "wqy-microhei.ttc"
    pdfmetrics.registerFont(TTFont(FONT, str(path), subfontIndex=0))


TEXT = ParagraphStyle("text", fontName=FONT, fontSize=9.5, leading=13)
SMALL = ParagraphStyle("small", parent=TEXT, fontSize=8.5, leading=11, textColor=colors.HexColor("#444444"))
TITLE = ParagraphStyle("title", parent=TEXT, fontSize=17, leading=22, spaceAfter=4)
# A table sets its cells' font (Helvetica unless told) even around paragraphs.
IN_FONT = ("FONTNAME", (0, 0), (-1, -1), FONT)
HEAD = ParagraphStyle("head", parent=TEXT, fontSize=11, leading=15, spaceBefore=8, spaceAfter=3)


def in_language(chinese: str, english: str) -> str:
    """A company fact the deployment gives in both languages (COMPANY_CONTACT / COMPANY_CONTACT_EN)."""
    return english if (get_language() or "en").startswith("en") else chinese


def _p(text, style=TEXT) -> Paragraph:
    return Paragraph(escape(str(text)).replace("\n", "<br/>"), style)


def need_by(task) -> str:
    """The day the request's goods are needed by (ISO), as the chat or the request page took it; "" if none."""
    day = needed_by_of(task)
    return day.isoformat() if day else ""


def spec(task) -> str:
    """The request's specs as she gave them (「27 吋」), joined; "" if none."""
    return "；".join((task.data.get("draft") or {}).get("notes") or [])


def _chain(po: PurchaseOrder) -> list[str]:
    """Who decided, on whose behalf, when: 「Dave Huang（代 Bob Wang）核准，2026-03-02 10:15」."""
    rows = []
    for decision in (ApprovalDecision.objects.filter(approval=po.approval)
                     .select_related("decided_by", "on_behalf_of").order_by("step", "at")):
        who = person_label(decision.decided_by)
        if decision.on_behalf_of_id:
            who = _("%(delegate)s on behalf of %(person)s") % {"delegate": who,
                                                               "person": person_label(decision.on_behalf_of)}
        when = timezone.localtime(decision.at).strftime("%Y-%m-%d %H:%M")
        rows.append(_("Step %(step)s: approved by %(who)s, %(when)s") % {"step": decision.step + 1, "who": who,
                                                                         "when": when})
    if not rows and po.approval.decided_by_id:
        rows.append(_("Approved by %(who)s") % {"who": person_label(po.approval.decided_by)})
    return rows


def _parties(po: PurchaseOrder, request) -> Table:
    buyer = [_p(_("Buyer"), SMALL), _p(settings.COMPANY_NAME),
             _p(_("Tax ID (統一編號): %(tax_id)s") % {"tax_id": settings.COMPANY_TAX_ID}),
             _p(_("Contact: %(contact)s") % {"contact": in_language(settings.COMPANY_CONTACT,
                                                                       settings.COMPANY_CONTACT_EN)})]
    supplier = [_p(_("Supplier"), SMALL), _p(po.supplier.name),
                _p(_("Tax ID (統一編號): %(tax_id)s") % {"tax_id": po.supplier.tax_id}),
                _p(po.supplier.email or "")]
    table = Table([[buyer, supplier]], colWidths=[88 * mm, 88 * mm])
    table.setStyle(TableStyle([IN_FONT, ("VALIGN", (0, 0), (-1, -1), "TOP"),
                               ("BOX", (0, 0), (0, 0), 0.5, colors.grey), ("BOX", (1, 0), (1, 0), 0.5, colors.grey),
                               ("LEFTPADDING", (0, 0), (-1, -1), 6)]))
    return table


def _lines(po: PurchaseOrder) -> Table:
    need_by_day, specs = need_by(po.task) or "—", spec(po.task)
    rows = [[_p(h, SMALL) for h in (_("Item"), _("Spec"), _("Need by"), _("Quantity"), _("Unit price (未稅)"),
                                    _("Amount (未稅)"))]]
    for line in po.lines:
        rows.append([_p(item_label(line.description)), _p(specs or "—"), _p(need_by_day), _p(line.quantity),
                     _p(ntd(line.unit_price)), _p(ntd(line.amount))])
    for label, value in ((_("Untaxed (未稅)"), po.subtotal), (_("Business tax (營業稅) 5%"), po.tax),
                         (_("Total incl. tax"), po.total)):
        rows.append(["", "", "", "", _p(label), _p(ntd(value))])
    table = Table(rows, colWidths=[36 * mm, 40 * mm, 24 * mm, 16 * mm, 30 * mm, 30 * mm], repeatRows=1)
    count = len(po.lines)
    table.setStyle(TableStyle([
        IN_FONT, ("GRID", (0, 0), (-1, count), 0.4, colors.grey),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#eeeeee")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"), ("LINEABOVE", (4, count + 1), (-1, count + 1), 0.6, colors.black),
        ("LINEABOVE", (4, count + 3), (-1, count + 3), 0.6, colors.black)]))
    return table


def po_filename(po: PurchaseOrder) -> str:
    return f"{po.number}.pdf"


def po_pdf(po: PurchaseOrder, request) -> bytes:
    """The 採購單 as PDF bytes, in the active language."""
    _register_font()
    buffer = io.BytesIO()
    document = SimpleDocTemplate(buffer, pagesize=A4, leftMargin=17 * mm, rightMargin=17 * mm, topMargin=16 * mm,
                                 bottomMargin=16 * mm, title=_("Purchase order %(number)s") % {"number": po.number},
                                 author=settings.COMPANY_NAME,
                                 # The page starts in our font, not in Helvetica, which would be listed unembedded.
                                 initialFontName=FONT)
    issued = timezone.localtime(po.approval.decided_at).strftime("%Y-%m-%d") if po.approval.decided_at else ""
    story = [
        _p(_("Purchase order (採購單)"), TITLE),
        _p(_("PO number: %(number)s") % {"number": po.number}),
        _p(_("Request: %(number)s · issued %(date)s") % {"number": request.number if request else "—",
                                                         "date": issued}),
        Spacer(1, 4 * mm), _parties(po, request),
        _p(_("Ship to"), HEAD), _p(settings.COMPANY_SHIP_TO),
        _p(_("Items"), HEAD), _lines(po),
        _p(_("Payment terms"), HEAD), _p(in_language(settings.PAYMENT_TERMS, settings.PAYMENT_TERMS_EN)),
        _p(_("Approval"), HEAD), *[_p(row) for row in _chain(po)],
    ]
    document.build(story)
    return buffer.getvalue()

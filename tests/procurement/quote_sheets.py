"""Quote sheets for the tests: seed 000's running example (20 quotes, 3 of them exceptions)
as XLSX or CSV bytes, built with openpyxl and csv."""
import csv
import io

import openpyxl

HEADER = ["品項", "供應商", "統一編號", "單價", "交期(天)"]
HSINCHU = ("新竹科技供應股份有限公司", "24536806")
TAIPEI = ("台北辦公用品有限公司", "53094126")
FORMOSA = ("福爾摩沙電腦股份有限公司", "90473155")
KAOHSIUNG = ("高雄辦公家具有限公司", "28741321")


def row(item, supplier, price, days=7, tax_id=None):
    name, known = supplier if isinstance(supplier, tuple) else (supplier, "")
    return [item, name, known if tax_id is None else tax_id, price, days]


# Rows 2-21 as the spreadsheet numbers them. Exceptions: row 5 (no such item), row 9 (a supplier
# whose 統一編號 fails its checksum), row 14 (a monitor at 12,000, 83% above the median 6,550).
TWENTY = [
    row("Laptop", HSINCHU, 34500), row("Monitor", HSINCHU, 6300), row("Keyboard", HSINCHU, 1500),
    row("雷射印表機", TAIPEI, 9800),
    row("USB-C dock", HSINCHU, 3100), row("Laptop", TAIPEI, 35500), row("Monitor", TAIPEI, 6500),
    row("Laptop", "Acme 無名電腦", 33000, tax_id="12345678"),
    row("Keyboard", TAIPEI, 1400), row("USB-C dock", TAIPEI, 3200), row("Office chair", TAIPEI, 8400),
    row("Laptop", FORMOSA, 35000),
    row("Monitor", FORMOSA, 12000),
    row("Keyboard", FORMOSA, 1480), row("USB-C dock", FORMOSA, 3200), row("Office chair", FORMOSA, 8700),
    row("Office chair", KAOHSIUNG, 8100), row("筆電", HSINCHU, 34800), row("螢幕", TAIPEI, 6450),
    row("鍵盤", FORMOSA, 1490),
]
EXCEPTION_ROWS = {5: "unknown_item", 9: "tax_id", 14: "price"}


def xlsx_bytes(rows=None, header=None) -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(header or HEADER)
    for values in TWENTY if rows is None else rows:
        sheet.append(values)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def csv_bytes(rows=None, header=None, encoding="utf-8") -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header or HEADER)
    writer.writerows(TWENTY if rows is None else rows)
    return buffer.getvalue().encode(encoding)


def entity_bomb_xlsx() -> bytes:
    """A workbook whose sheet XML declares nested entities ("billion laughs"), the rest a real sheet."""
    import zipfile

    source = zipfile.ZipFile(io.BytesIO(xlsx_bytes()))
    entities = '<!ENTITY a0 "lol">' + "".join(f'<!ENTITY a{n} "{f"&a{n - 1};" * 10}">' for n in range(1, 10))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bomb:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                text = data.decode()
                data = (f"<!DOCTYPE worksheet [{entities}]>" + text.replace("<v>34500</v>", "<v>&a9;</v>", 1)).encode()
            bomb.writestr(info, data)
    return buffer.getvalue()

"""Writes a zip with Python's zipfile (a producer independent of libarchive), for tests.

Usage: make_zip.py <zip path> <spec.json>, where the spec is a list of entries:
  {"name": "Pkg/a.txt", "data": "text" | "data_base64": "...", "mode": 33188,
   "deflate": false, "declaredSize": null}
`mode` is the full st_mode (stored in external_attr as Info-ZIP does); `declaredSize`, when
set, patches the local and central headers to claim that uncompressed size (a lying header).
"""
import base64
import json
import struct
import sys
import zipfile

path, spec = sys.argv[1], json.load(open(sys.argv[2]))
with zipfile.ZipFile(path, 'w') as archive:
    for entry in spec:
        info = zipfile.ZipInfo(entry['name'], date_time=(2020, 1, 1, 0, 0, 0))
        info.create_system = 3
        info.external_attr = entry['mode'] << 16
        info.compress_type = zipfile.ZIP_DEFLATED if entry['deflate'] else zipfile.ZIP_STORED
        data = base64.b64decode(entry['data_base64']) if 'data_base64' in entry else entry['data']
        archive.writestr(info, data)
lies = {entry['name']: entry['declaredSize'] for entry in spec if entry.get('declaredSize') is not None}
if lies:
    archive = zipfile.ZipFile(path)
    data = bytearray(open(path, 'rb').read())
    for info in archive.infolist():
        if info.filename in lies:
            struct.pack_into('<I', data, info.header_offset + 22, lies[info.filename])
    offset = archive.start_dir
    while data[offset:offset + 4] == b'PK\x01\x02':
        name_length, extra_length, comment_length = struct.unpack_from('<HHH', data, offset + 28)
        name = bytes(data[offset + 46:offset + 46 + name_length]).decode()
        if name in lies:
            struct.pack_into('<I', data, offset + 24, lies[name])
        offset += 46 + name_length + extra_length + comment_length
    open(path, 'wb').write(data)

#ifndef CCURLSHIM_H
#define CCURLSHIM_H
#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call. These are
// their typed fixed-argument forms, one per kind of value libcurl takes.

/// The shape shared by CURLOPT_WRITEFUNCTION, CURLOPT_READFUNCTION and CURLOPT_HEADERFUNCTION.
typedef size_t (*ccurl_data_callback)(char *buffer, size_t size, size_t count, void *context);

CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_easy_setopt_offset(CURL *handle, CURLoption option, curl_off_t value);
/// libcurl copies string options (since 7.17), so `value` need only live for the call.
CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
/// Pointers libcurl keeps and uses during the transfer: header lists, callback context,
/// the error buffer. They must outlive curl_easy_perform.
CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_easy_setopt_callback(CURL *handle, CURLoption option, ccurl_data_callback value);

CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);

#endif

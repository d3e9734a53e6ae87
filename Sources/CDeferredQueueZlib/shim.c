// The header does everything; a C target needs one source file.
#include "CDeferredQueueZlib.h"

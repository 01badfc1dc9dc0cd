/* Word tables of the header proposer: what ERPs, TMSs, broker portals and
 * dispatch spreadsheets call each jobs schema field (see synonyms.h). */
#include "synonyms.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define S(p, f, s) { p, f, s, false }
#define W(p, f, s) { p, f, s, true } /* whole header only */
#define IGNORE(p) { p, FIELD_NONE, 95, true }

/* Scores say how sure a whole-header match is; where two names compete in
 * one file (Load Date and Delivery Date, Net and Gross Weight, Rate and
 * Amount) the one a person would pick scores higher, since the best
 * column wins the field.  Address fields are not here: propose.c builds
 * them from group and part words. */
const struct synonym syn_table[] = {
	/* jobCode: the project's key; "project" alone is a code more often
	 * than a name in exports that also have a project name column. */
	S("job code", FIELD_JOB_CODE, 98), S("job no", FIELD_JOB_CODE, 95),
	S("job", FIELD_JOB_CODE, 90), S("job id", FIELD_JOB_CODE, 92),
	S("job reference", FIELD_JOB_CODE, 90), S("job key", FIELD_JOB_CODE, 85),
	S("project", FIELD_JOB_CODE, 80), S("project no", FIELD_JOB_CODE, 92),
	S("project code", FIELD_JOB_CODE, 95), S("project id", FIELD_JOB_CODE, 90),
	S("contract", FIELD_JOB_CODE, 75), S("contract no", FIELD_JOB_CODE, 85),
	S("work order", FIELD_JOB_CODE, 75), S("work order no", FIELD_JOB_CODE, 80),
	S("wo no", FIELD_JOB_CODE, 75),

	/* loadNo: TMSs say order, shipment, PRO, trip; haulers say load,
	 * dispatch, delivery. */
	S("load no", FIELD_LOAD_NO, 98), S("load", FIELD_LOAD_NO, 85),
	S("load id", FIELD_LOAD_NO, 92), S("load reference", FIELD_LOAD_NO, 88),
	S("order", FIELD_LOAD_NO, 75), S("order no", FIELD_LOAD_NO, 85),
	S("order id", FIELD_LOAD_NO, 82), S("shipment", FIELD_LOAD_NO, 80),
	S("shipment no", FIELD_LOAD_NO, 90), S("shipment id", FIELD_LOAD_NO, 90),
	S("pro no", FIELD_LOAD_NO, 85), S("pro", FIELD_LOAD_NO, 75),
	S("trip", FIELD_LOAD_NO, 75), S("trip no", FIELD_LOAD_NO, 85),
	S("delivery no", FIELD_LOAD_NO, 85), S("dispatch no", FIELD_LOAD_NO, 85),
	S("dispatch id", FIELD_LOAD_NO, 82), S("haul no", FIELD_LOAD_NO, 85),
	S("run no", FIELD_LOAD_NO, 75), S("reference no", FIELD_LOAD_NO, 70),
	S("reference", FIELD_LOAD_NO, 65), S("booking no", FIELD_LOAD_NO, 75),
	S("manifest no", FIELD_LOAD_NO, 70), S("freight bill no", FIELD_LOAD_NO, 75),
	/* Load ids of other modes and papers (issue 22): parcel tracking,
	 * air house bills, trip slips, LTL pickup numbers. */
	S("tracking no", FIELD_LOAD_NO, 82), S("tracking", FIELD_LOAD_NO, 70),
	S("tracking id", FIELD_LOAD_NO, 82), S("hawb", FIELD_LOAD_NO, 85),
	S("hawb no", FIELD_LOAD_NO, 88), S("awb", FIELD_LOAD_NO, 75), S("awb no", FIELD_LOAD_NO, 80),
	S("waybill", FIELD_LOAD_NO, 75), S("waybill no", FIELD_LOAD_NO, 82),
	S("trip slip", FIELD_LOAD_NO, 80), S("trip slip no", FIELD_LOAD_NO, 85),
	S("pickup ticket", FIELD_LOAD_NO, 80), S("pickup no", FIELD_LOAD_NO, 80),
	S("reference id", FIELD_LOAD_NO, 80),
	/* Other names of the load's own number (issue 26): movements, delivery
	 * orders, consignments, containers of drayage moves. */
	S("movement", FIELD_LOAD_NO, 75), S("movement no", FIELD_LOAD_NO, 85),
	S("movement id", FIELD_LOAD_NO, 85), S("delivery order", FIELD_LOAD_NO, 80),
	S("delivery order no", FIELD_LOAD_NO, 85), S("consignment", FIELD_LOAD_NO, 80),
	S("consignment no", FIELD_LOAD_NO, 88), S("consignment id", FIELD_LOAD_NO, 85),
	S("container no", FIELD_LOAD_NO, 75), S("trip id", FIELD_LOAD_NO, 85),
	S("bill no", FIELD_LOAD_NO, 70), S("booking id", FIELD_LOAD_NO, 75),

	/* loadDate: the day the load moved.  A delivery date is a fallback
	 * only, below any pickup, ship or load date. */
	S("load date", FIELD_LOAD_DATE, 98), S("date", FIELD_LOAD_DATE, 85),
	S("haul date", FIELD_LOAD_DATE, 95), S("ship date", FIELD_LOAD_DATE, 92),
	S("date shipped", FIELD_LOAD_DATE, 88), S("shipped", FIELD_LOAD_DATE, 70),
	S("pickup date", FIELD_LOAD_DATE, 90), S("loaded date", FIELD_LOAD_DATE, 90),
	S("date loaded", FIELD_LOAD_DATE, 90), S("loading date", FIELD_LOAD_DATE, 90),
	S("service date", FIELD_LOAD_DATE, 85), S("work date", FIELD_LOAD_DATE, 85),
	S("job date", FIELD_LOAD_DATE, 80), S("dispatch date", FIELD_LOAD_DATE, 85),
	S("ticket date", FIELD_LOAD_DATE, 85), S("scale date", FIELD_LOAD_DATE, 82),
	S("trip date", FIELD_LOAD_DATE, 82), S("collection date", FIELD_LOAD_DATE, 85),
	S("delivery date", FIELD_LOAD_DATE, 75), S("date delivered", FIELD_LOAD_DATE, 72),
	S("order date", FIELD_LOAD_DATE, 70), S("fecha", FIELD_LOAD_DATE, 80),
	S("day", FIELD_LOAD_DATE, 70), W("loaded", FIELD_LOAD_DATE, 75),
	/* A pickup window's first day is the load's day; its end is not
	 * (PNET: pickup not earlier than). */
	S("pickup earliest", FIELD_LOAD_DATE, 88), S("earliest pickup", FIELD_LOAD_DATE, 88),
	S("pnet", FIELD_LOAD_DATE, 85),
	S("pickup appointment", FIELD_LOAD_DATE, 85),
	S("appointment", FIELD_LOAD_DATE, 60),
	S("delivery appointment", FIELD_LOAD_DATE, 70),

	/* projectName */
	S("project name", FIELD_PROJECT_NAME, 98), S("job name", FIELD_PROJECT_NAME, 95),
	S("job description", FIELD_PROJECT_NAME, 90),
	S("project description", FIELD_PROJECT_NAME, 90),
	S("project title", FIELD_PROJECT_NAME, 90), S("job title", FIELD_PROJECT_NAME, 88),
	S("contract name", FIELD_PROJECT_NAME, 80),
	/* "Project" or "Job" alone is a job code first; next to a "Job
	 * Number" that took the code, it is the project's name (PRODUCT §11). */
	S("project", FIELD_PROJECT_NAME, 70), S("job", FIELD_PROJECT_NAME, 60),

	/* customer: who pays.  "Bill To" is the customer; a bill-to address
	 * is not a location (GROUP_BILLING). */
	S("customer", FIELD_CUSTOMER, 95), S("customer name", FIELD_CUSTOMER, 95),
	S("client", FIELD_CUSTOMER, 90), S("client name", FIELD_CUSTOMER, 90),
	S("account", FIELD_CUSTOMER, 80), S("account name", FIELD_CUSTOMER, 85),
	S("billto", FIELD_CUSTOMER, 88), S("billto name", FIELD_CUSTOMER, 90),
	S("contractor", FIELD_CUSTOMER, 80), S("general contractor", FIELD_CUSTOMER, 80),
	S("payer", FIELD_CUSTOMER, 75), S("broker", FIELD_CUSTOMER, 70),
	S("buyer", FIELD_CUSTOMER, 70), S("cliente", FIELD_CUSTOMER, 80),
	/* A company with no group word ("Shipper Company" is the pickup's
	 * name): on load boards and broker sheets, who posts and pays. */
	S("company", FIELD_CUSTOMER, 60), S("company name", FIELD_CUSTOMER, 62),

	/* branch: the hauler's own unit. */
	S("branch", FIELD_BRANCH, 95), S("branch name", FIELD_BRANCH, 95),
	S("terminal", FIELD_BRANCH, 88), S("home terminal", FIELD_BRANCH, 85),
	S("yard", FIELD_BRANCH, 85), S("division", FIELD_BRANCH, 88),
	S("office", FIELD_BRANCH, 75), S("depot", FIELD_BRANCH, 80),
	S("business unit", FIELD_BRANCH, 70),
	S("hub", FIELD_BRANCH, 70),

	/* projectManager: a user of the organization; a dispatcher or a
	 * superintendent is the person who runs the job day to day. */
	S("pm", FIELD_PROJECT_MANAGER, 95), S("pm name", FIELD_PROJECT_MANAGER, 95),
	S("manager", FIELD_PROJECT_MANAGER, 75), S("job manager", FIELD_PROJECT_MANAGER, 85),
	S("dispatcher", FIELD_PROJECT_MANAGER, 70),
	S("superintendent", FIELD_PROJECT_MANAGER, 75),
	S("foreman", FIELD_PROJECT_MANAGER, 65),
	S("account manager", FIELD_PROJECT_MANAGER, 70),

	/* material */
	S("material", FIELD_MATERIAL, 95), S("material type", FIELD_MATERIAL, 92),
	S("material description", FIELD_MATERIAL, 92),
	S("material name", FIELD_MATERIAL, 92), S("commodity", FIELD_MATERIAL, 92),
	S("commodity description", FIELD_MATERIAL, 90),
	S("product", FIELD_MATERIAL, 88), S("product name", FIELD_MATERIAL, 88),
	S("product service", FIELD_MATERIAL, 90), S("item", FIELD_MATERIAL, 80),
	S("item description", FIELD_MATERIAL, 82), S("description", FIELD_MATERIAL, 65),
	S("product description", FIELD_MATERIAL, 90),
	S("aggregate", FIELD_MATERIAL, 80), S("mix", FIELD_MATERIAL, 75),
	S("mix type", FIELD_MATERIAL, 80), S("goods", FIELD_MATERIAL, 80),
	S("cargo", FIELD_MATERIAL, 75), S("content", FIELD_MATERIAL, 80),
	S("load content", FIELD_MATERIAL, 90), S("description content", FIELD_MATERIAL, 88),
	S("nature goods", FIELD_MATERIAL, 88),

	/* truckType: a kind of truck, never a truck's number. */
	S("truck type", FIELD_TRUCK_TYPE, 98), S("equipment", FIELD_TRUCK_TYPE, 90),
	S("equipment type", FIELD_TRUCK_TYPE, 95), S("trailer type", FIELD_TRUCK_TYPE, 92),
	S("vehicle type", FIELD_TRUCK_TYPE, 90), S("truck class", FIELD_TRUCK_TYPE, 88),
	S("body type", FIELD_TRUCK_TYPE, 80), W("trailer", FIELD_TRUCK_TYPE, 60),

	/* ticketNo: the scale or delivery ticket; a bill of lading plays the
	 * same role (the paper that proves the load). */
	S("ticket no", FIELD_TICKET_NO, 98), S("ticket", FIELD_TICKET_NO, 90),
	S("ticket id", FIELD_TICKET_NO, 92), S("scale ticket", FIELD_TICKET_NO, 92),
	S("weight ticket", FIELD_TICKET_NO, 90), S("delivery ticket", FIELD_TICKET_NO, 90),
	S("haul ticket", FIELD_TICKET_NO, 90), S("load ticket", FIELD_TICKET_NO, 88),
	S("tag no", FIELD_TICKET_NO, 80), S("tag", FIELD_TICKET_NO, 70),
	S("bol", FIELD_TICKET_NO, 85), S("bol no", FIELD_TICKET_NO, 85),
	S("receipt no", FIELD_TICKET_NO, 70), S("docket no", FIELD_TICKET_NO, 80),
	S("docket", FIELD_TICKET_NO, 75),

	/* weight: net beats gross (gross includes the truck). */
	S("weight", FIELD_WEIGHT, 95), S("net weight", FIELD_WEIGHT, 95),
	S("gross weight", FIELD_WEIGHT, 88), S("net", FIELD_WEIGHT, 75),
	S("gross", FIELD_WEIGHT, 70), S("ton", FIELD_WEIGHT, 90),
	S("net ton", FIELD_WEIGHT, 95), S("gross ton", FIELD_WEIGHT, 85),
	S("tonnage", FIELD_WEIGHT, 90), S("quantity", FIELD_WEIGHT, 70),
	S("lb", FIELD_WEIGHT, 85), S("kg", FIELD_WEIGHT, 80), S("tonne", FIELD_WEIGHT, 80),
	S("scale weight", FIELD_WEIGHT, 90), S("load weight", FIELD_WEIGHT, 92),
	S("payload", FIELD_WEIGHT, 80), S("peso", FIELD_WEIGHT, 80),

	/* weightUnit */
	S("weight unit", FIELD_WEIGHT_UNIT, 98), S("weight uom", FIELD_WEIGHT_UNIT, 95),
	S("uom", FIELD_WEIGHT_UNIT, 92), S("unit", FIELD_WEIGHT_UNIT, 75),
	S("quantity unit", FIELD_WEIGHT_UNIT, 85), S("quantity uom", FIELD_WEIGHT_UNIT, 90),
	S("measure", FIELD_WEIGHT_UNIT, 70),

	/* rate: the per-load or per-ton price beats a total amount. */
	S("rate", FIELD_RATE, 95), S("haul rate", FIELD_RATE, 95),
	S("price", FIELD_RATE, 88), S("unit price", FIELD_RATE, 85),
	S("amount", FIELD_RATE, 75), S("cost", FIELD_RATE, 80),
	S("charge", FIELD_RATE, 75), S("total charge", FIELD_RATE, 80),
	S("freight charge", FIELD_RATE, 85), S("linehaul", FIELD_RATE, 85),
	S("linehaul rate", FIELD_RATE, 90), S("rate ton", FIELD_RATE, 90),
	S("dollar ton", FIELD_RATE, 90), S("price ton", FIELD_RATE, 88),
	S("dollar", FIELD_RATE, 80), S("revenue", FIELD_RATE, 70),
	S("pay rate", FIELD_RATE, 85), S("pay", FIELD_RATE, 65),
	S("total pay", FIELD_RATE, 80), S("sales price", FIELD_RATE, 88),
	S("unit cost", FIELD_RATE, 85),
	S("total", FIELD_RATE, 60), S("total rate", FIELD_RATE, 90),
	S("freight rate", FIELD_RATE, 90), S("truck rate", FIELD_RATE, 88),
	S("precio", FIELD_RATE, 75),

	/* notes */
	S("note", FIELD_NOTES, 95), S("comment", FIELD_NOTES, 90),
	S("remark", FIELD_NOTES, 90), S("instruction", FIELD_NOTES, 88),
	S("special instruction", FIELD_NOTES, 92),
	S("delivery instruction", FIELD_NOTES, 90), S("memo", FIELD_NOTES, 85),
	S("message", FIELD_NOTES, 65), S("notas", FIELD_NOTES, 80),

	/* Columns real exports carry that no field takes.  Naming them keeps
	 * a word inside them ("Invoice Date", "Truck #") from proposing a
	 * field, and says "ignore" with confidence. */
	IGNORE("driver"), IGNORE("driver name"), IGNORE("truck"), IGNORE("truck no"),
	IGNORE("truck id"), IGNORE("unit no"), IGNORE("tractor"), IGNORE("tractor no"),
	IGNORE("trailer no"), IGNORE("invoice"), IGNORE("invoice no"),
	IGNORE("invoice date"), IGNORE("invoice amount"), IGNORE("po"), IGNORE("po no"),
	IGNORE("customer po"), IGNORE("status"), IGNORE("created"), IGNORE("created at"),
	IGNORE("created by"), IGNORE("created date"), IGNORE("modified"),
	IGNORE("updated at"), IGNORE("id"), IGNORE("no"), IGNORE("row"), IGNORE("line"),
	IGNORE("mileage"), IGNORE("distance"), IGNORE("fuel surcharge"),
	IGNORE("fsc"), IGNORE("tare"), IGNORE("tare weight"), IGNORE("hours"),
	IGNORE("carrier"), IGNORE("carrier name"), IGNORE("pieces"), IGNORE("pallets"),
	IGNORE("hazmat"), IGNORE("phone"), IGNORE("email"), IGNORE("contact"),
	IGNORE("class"), IGNORE("seal"), IGNORE("temperature"), IGNORE("paid"),
	IGNORE("balance"), IGNORE("tax"), IGNORE("extended amount"),
	IGNORE("line total"), IGNORE("country"), IGNORE("latitude"),
	IGNORE("longitude"), IGNORE("bill date"), IGNORE("billing date"),
	IGNORE("due date"), IGNORE("paid date"), IGNORE("pickup latest"),
	IGNORE("latest pickup"), IGNORE("plat"), IGNORE("mawb"), IGNORE("mawb no"),
	/* Words that make any header something else: a count of loads, the
	 * type of a cost.  Matched inside longer headers too. */
	S("count", FIELD_NONE, 95), S("type", FIELD_NONE, 80),
	/* Miles are never a field: "Loaded Miles" is no load date. */
	S("miles", FIELD_NONE, 95),
};
const size_t syn_table_len = N(syn_table);

/* Abbreviations and spellings to one canonical word.  "#", "No", "No.",
 * "Num", "Nbr" and "Number" all become "no"; "St" is a state, since
 * headers spell a street "Address". */
const struct canon syn_canon[] = {
	{ "number", "no" }, { "num", "no" }, { "nbr", "no" }, { "nmbr", "no" },
	{ "nr", "no" }, { "nro", "no" }, { "cust", "customer" }, { "clnt", "client" },
	{ "acct", "account" }, { "mgr", "manager" }, { "mngr", "manager" },
	{ "proj", "project" }, { "prj", "project" }, { "tkt", "ticket" },
	{ "tix", "ticket" }, { "wt", "weight" }, { "wgt", "weight" },
	{ "wght", "weight" }, { "qty", "quantity" }, { "qnty", "quantity" },
	{ "amt", "amount" }, { "desc", "description" }, { "descr", "description" },
	{ "dest", "destination" }, { "dst", "destination" }, { "orig", "origin" },
	{ "addr", "address" }, { "adr", "address" }, { "add", "address" },
	{ "del", "delivery" }, { "dlv", "delivery" }, { "dlvy", "delivery" },
	{ "deliv", "delivery" }, { "delv", "delivery" }, { "dlvry", "delivery" },
	{ "pu", "pickup" }, { "dt", "date" }, { "mat", "material" },
	{ "matl", "material" }, { "mtl", "material" }, { "matrl", "material" },
	{ "equip", "equipment" }, { "eqpt", "equipment" }, { "eqp", "equipment" },
	{ "cmdty", "commodity" }, { "instr", "instruction" }, { "rmk", "remark" },
	{ "rmks", "remark" }, { "cmt", "comment" }, { "cmts", "comment" },
	{ "cons", "consignee" }, { "cnee", "consignee" }, { "consig", "consignee" },
	{ "csgn", "consignee" }, { "shpr", "shipper" }, { "st", "state" },
	{ "prov", "province" }, { "ref", "reference" }, { "trk", "truck" },
	{ "trl", "trailer" }, { "trlr", "trailer" }, { "typ", "type" },
	{ "div", "division" }, { "trml", "terminal" },
	{ "brch", "branch" }, { "ld", "load" }, { "jb", "job" }, { "nm", "name" },
	{ "loc", "location" }, { "fac", "facility" }, { "rcv", "receiver" },
	{ "rcvr", "receiver" }, { "lbs", "lb" }, { "pound", "lb" }, { "pounds", "lb" },
	{ "tn", "ton" }, { "tons", "ton" }, { "zipcode", "zip" }, { "postcode", "zip" },
	{ "postal", "zip" }, { "postalcode", "zip" }, { "rt", "rate" }, { "prc", "price" },
	{ "chg", "charge" }, { "chrg", "charge" }, { "hrs", "hours" }, { "ph", "phone" },
	{ "tel", "phone" }, { "yd", "yard" }, { "src", "source" }, { "kgs", "kg" },
	{ "kilogram", "kg" }, { "kilograms", "kg" }, { "tonnes", "tonne" },
	{ "mt", "tonne" }, { "jobsite", "jobsite" }, { "dropoff", "dropoff" },
	{ "pickup", "pickup" }, { "superintendant", "superintendent" },
	{ "supt", "superintendent" }, { "lat", "latitude" }, { "lng", "longitude" },
	{ "lon", "longitude" }, { "long", "longitude" }, { "mail", "email" },
	{ "uofm", "uom" }, { "um", "uom" }, { "units", "quantity" },
	{ "appt", "appointment" }, { "descrip", "description" }, { "comments", "comment" },
	{ "notes", "note" }, { "remarks", "remark" }, { "instructions", "instruction" },
	{ "datetime", "date" }, { "contents", "content" }, { "mile", "miles" },
	/* A currency code is money ("linehaul_usd", "Rate EUR"). */
	{ "usd", "dollar" }, { "cad", "dollar" }, { "eur", "dollar" }, { "gbp", "dollar" },
	{ "zar", "dollar" }, { "aud", "dollar" }, { "inr", "dollar" }, { "mxn", "dollar" },
	{ "pck", "pickup" }, { "pkup", "pickup" }, { "consignor", "shipper" },
	/* Past forms of the moving verbs read as the verb ("Hauled From"). */
	{ "hauled", "haul" }, { "sent", "send" },
};
const size_t syn_canon_len = N(syn_canon);

/* Token sequences that mean one word.  Applied after canon, before the
 * stop words go ("bill of lading", "unit of measure"). */
const struct rewrite syn_rewrites[] = {
	{ "pick up", "pickup" }, { "p u", "pickup" }, { "drop off", "dropoff" },
	{ "ship to", "shipto" }, { "ship from", "shipfrom" }, { "bill to", "billto" },
	{ "sold to", "billto" }, { "deliver to", "dropoff" }, { "load at", "loadat" },
	{ "load site", "loadat" }, { "load point", "loadat" }, { "job site", "jobsite" },
	{ "zip code", "zip" }, { "postal code", "zip" }, { "zip zip", "zip" },
	{ "zip 4", "zip" }, { "bill of lading", "bol" }, { "b l", "bol" },
	{ "b o l", "bol" }, { "u m", "uom" }, { "unit of measure", "uom" },
	{ "line haul", "linehaul" }, { "purchase order", "po" }, { "p o", "po" },
	{ "project manager", "pm" }, { "e mail", "email" }, { "address line", "address" },
	{ "street address", "address" }, { "haul from", "shipfrom" },
	{ "haul to", "shipto" }, { "dump site", "dumpsite" },
	/* A moving word before "from" or "to" names the place, not the load
	 * ("Shipment From", "shipped_to", "Sent From"). */
	{ "shipment from", "shipfrom" }, { "shipment to", "shipto" },
	{ "shipped from", "shipfrom" }, { "shipped to", "shipto" },
	{ "send from", "shipfrom" }, { "send to", "shipto" },
	{ "delivered to", "dropoff" }, { "post code", "zip" },
	{ "no of", "count" }, { "loaded at", "loaded" }, { "house bill", "hawb" },
	{ "house awb", "hawb" }, { "air waybill", "awb" }, { "way bill", "waybill" },
	/* Two-stop TMS exports: the first stop is the pickup, the second the
	 * dropoff (with more stops only the first is sure). */
	{ "stop 1", "pickup" }, { "stop 2", "dropoff" }, { "first stop", "pickup" },
	{ "last stop", "dropoff" }, { "final stop", "dropoff" },
};
const size_t syn_rewrites_len = N(syn_rewrites);

/* Direction words.  "Job" and "project" only qualify a part ("Job
 * Address"); alone they are the job code (syn_table).  "Site" names the
 * project unless a direction word is also there ("Pickup Site"). */
const struct group_word syn_group_words[] = {
	{ "pickup", GROUP_PICKUP, false, true },
	{ "shipfrom", GROUP_PICKUP, false, true },
	{ "shipper", GROUP_PICKUP, false, true },
	{ "origin", GROUP_PICKUP, false, true },
	{ "from", GROUP_PICKUP, false, true },
	{ "loadat", GROUP_PICKUP, false, true },
	{ "loading", GROUP_PICKUP, false, true },
	{ "source", GROUP_PICKUP, false, true },
	{ "plant", GROUP_PICKUP, false, true },
	{ "quarry", GROUP_PICKUP, false, true },
	{ "pit", GROUP_PICKUP, false, true },
	{ "collection", GROUP_PICKUP, false, true },
	{ "shipping", GROUP_PICKUP, false, true },
	{ "sender", GROUP_PICKUP, false, true },
	{ "supplier", GROUP_PICKUP, false, true },
	{ "departure", GROUP_PICKUP, false, true },
	/* "O St", "D Zip": one-letter prefixes, only before a part word. */
	{ "o", GROUP_PICKUP, false, false },
	{ "load", GROUP_PICKUP, false, false },
	{ "dropoff", GROUP_DROPOFF, false, true },
	{ "drop", GROUP_DROPOFF, false, true },
	{ "delivery", GROUP_DROPOFF, false, true },
	{ "deliver", GROUP_DROPOFF, false, true },
	{ "destination", GROUP_DROPOFF, false, true },
	{ "shipto", GROUP_DROPOFF, false, true },
	{ "consignee", GROUP_DROPOFF, false, true },
	{ "receiver", GROUP_DROPOFF, false, true },
	{ "to", GROUP_DROPOFF, false, true },
	{ "unloading", GROUP_DROPOFF, false, true },
	{ "receiving", GROUP_DROPOFF, false, true },
	{ "recipient", GROUP_DROPOFF, false, true },
	{ "arrival", GROUP_DROPOFF, false, true },
	{ "d", GROUP_DROPOFF, false, false },
	{ "unload", GROUP_DROPOFF, false, false },
	{ "dumpsite", GROUP_DROPOFF, false, true },
	{ "dump", GROUP_DROPOFF, false, false },
	{ "project", GROUP_NONE, true, false },
	{ "job", GROUP_NONE, true, false },
	{ "jobsite", GROUP_NONE, true, true },
	{ "site", GROUP_NONE, true, true },
	{ "billto", GROUP_BILLING, false, false },
	{ "billing", GROUP_BILLING, false, false },
	{ "customer", GROUP_BILLING, false, false },
	{ "client", GROUP_BILLING, false, false },
	{ "account", GROUP_BILLING, false, false },
	{ "invoice", GROUP_BILLING, false, false },
	{ "remit", GROUP_BILLING, false, false },
};
const size_t syn_group_words_len = N(syn_group_words);

/* Part words.  Street, city, state and ZIP words outrank name words
 * ("Yard Address" is a street). */
const struct part_word syn_part_words[] = {
	{ "name", PART_NAME },       { "location", PART_NAME },
	{ "facility", PART_NAME },   { "site", PART_NAME },
	{ "yard", PART_NAME },       { "company", PART_NAME },
	{ "business", PART_NAME },   { "address", PART_STREET },
	/* Places a load leaves or reaches by name ("Origin Port"). */
	{ "port", PART_NAME },       { "airport", PART_NAME },
	{ "station", PART_NAME },    { "warehouse", PART_NAME },
	{ "street", PART_STREET },   { "line", PART_STREET },
	{ "city", PART_CITY },       { "town", PART_CITY },
	{ "municipality", PART_CITY }, { "state", PART_STATE },
	{ "province", PART_STATE },  { "zip", PART_ZIP },
};
const size_t syn_part_words_len = N(syn_part_words);

const char *const syn_stop_words[] = { "the", "of", "a", "an", "for", "per",
				       "in", "and", "or", "at", "s", "where",
				       /* "Assigned Dispatcher": who, not whether */
				       "assigned" };
const size_t syn_stop_words_len = N(syn_stop_words);

/* Words the rules of propose.c read that no table above holds (moments,
 * plan words, money that is no price, kinds of goods, people): known
 * words, so that a typo is corrected to them and they to nothing else
 * ("Dispatched" is no misspelt "Dispatcher"). */
const char *const syn_rule_words[] = {
	"dispatched", "departed", "departure", "actual", "real", "confirmed", "scheduled", "planned",
	"estimated", "latest", "earliest", "profit", "margin", "value", "tax", "vat", "duty", "customs",
	"discount", "deposit", "balance", "insurance", "insured", "category", "kind", "fax", "attention",
	"attn", "person", "mobile", "first", "last", "current", "modified", "updated", "timestamp",
};
const size_t syn_rule_words_len = N(syn_rule_words);

const char *syn_canon_of(const char *tok)
{
	for (size_t i = 0; i < syn_canon_len; i++)
		if (strcmp(syn_canon[i].from, tok) == 0)
			return syn_canon[i].to;
	return NULL;
}

const struct group_word *syn_group_word(const char *tok)
{
	for (size_t i = 0; i < syn_group_words_len; i++)
		if (strcmp(syn_group_words[i].word, tok) == 0)
			return &syn_group_words[i];
	return NULL;
}

const struct part_word *syn_part_word(const char *tok)
{
	for (size_t i = 0; i < syn_part_words_len; i++)
		if (strcmp(syn_part_words[i].word, tok) == 0)
			return &syn_part_words[i];
	return NULL;
}

bool syn_is_stop_word(const char *tok)
{
	for (size_t i = 0; i < syn_stop_words_len; i++)
		if (strcmp(syn_stop_words[i], tok) == 0)
			return true;
	return false;
}

/* ---- Vocabulary: every word of the tables, built once ---- */

#define VOCAB_MAX 2048
#define POOL_SIZE 32768

static struct {
	char pool[POOL_SIZE];
	size_t pool_used;
	const char *all[VOCAB_MAX];  /* every word, sorted, unique */
	size_t n_all;
	const char *fuzzy[VOCAB_MAX]; /* words of 3+ letters typos go to */
	size_t n_fuzzy;
} vocab;

static pthread_once_t vocab_once = PTHREAD_ONCE_INIT;

static int cmp_word(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Copies each space-separated word of phrase into the pool and lists it;
 * the tables are small and fixed, so the caps are never reached (the unit
 * test checks that the lists are complete). */
static void add_words(const char *phrase, bool fuzzy)
{
	const char *p = phrase;
	while (*p) {
		size_t len = strcspn(p, " ");
		if (len > 0 && vocab.pool_used + len + 1 <= POOL_SIZE &&
		    vocab.n_all < VOCAB_MAX) {
			char *w = vocab.pool + vocab.pool_used;
			memcpy(w, p, len);
			w[len] = '\0';
			vocab.pool_used += len + 1;
			vocab.all[vocab.n_all++] = w;
			if (fuzzy && len >= 3)
				vocab.fuzzy[vocab.n_fuzzy++] = w;
		}
		p += len;
		while (*p == ' ')
			p++;
	}
}

static size_t sort_unique(const char **v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_word);
	size_t out = 0;
	for (size_t i = 0; i < n; i++)
		if (out == 0 || strcmp(v[out - 1], v[i]) != 0)
			v[out++] = v[i];
	return out;
}

/* Abbreviations ("dest", "cons") are known words for compound splitting,
 * but no typo target: a typo is corrected to the real word. */
static void build_vocab(void)
{
	for (size_t i = 0; i < syn_table_len; i++)
		add_words(syn_table[i].phrase, true);
	for (size_t i = 0; i < syn_canon_len; i++) {
		add_words(syn_canon[i].from, false);
		add_words(syn_canon[i].to, true);
	}
	for (size_t i = 0; i < syn_rewrites_len; i++) {
		add_words(syn_rewrites[i].from, false);
		add_words(syn_rewrites[i].to, true);
	}
	for (size_t i = 0; i < syn_group_words_len; i++)
		add_words(syn_group_words[i].word, true);
	for (size_t i = 0; i < syn_part_words_len; i++)
		add_words(syn_part_words[i].word, true);
	for (size_t i = 0; i < syn_stop_words_len; i++)
		add_words(syn_stop_words[i], false);
	for (size_t i = 0; i < syn_rule_words_len; i++)
		add_words(syn_rule_words[i], true);
	vocab.n_all = sort_unique(vocab.all, vocab.n_all);
	vocab.n_fuzzy = sort_unique(vocab.fuzzy, vocab.n_fuzzy);
}

bool syn_known(const char *w, size_t len)
{
	pthread_once(&vocab_once, build_vocab);
	size_t lo = 0, hi = vocab.n_all;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *v = vocab.all[mid];
		int c = strncmp(v, w, len);
		if (c == 0 && v[len] != '\0')
			c = 1; /* v is longer: it sorts after w */
		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

const char *const *syn_fuzzy_targets(size_t *ret_n)
{
	pthread_once(&vocab_once, build_vocab);
	*ret_n = vocab.n_fuzzy;
	return vocab.fuzzy;
}

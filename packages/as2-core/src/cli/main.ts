console.log("as2kit: command line arrives shortly");
